"""The results store: runs, executions and every sample, in SQLite by default or in PostgreSQL.

:class:`ResultStore` is the store; the values it takes and gives are the dataclasses of
:mod:`rigorbench.store.api` (the contract between the experiment and the store).
"""

from rigorbench.store.api import Execution, ExecutionRecord, RunInfo, TrialRecord, VersionInfo
from rigorbench.store.results import ResultStore

DEFAULT_STORE = ".rigorbench/results.db"

__all__ = ["DEFAULT_STORE", "Execution", "ExecutionRecord", "ResultStore", "RunInfo", "TrialRecord", "VersionInfo"]
