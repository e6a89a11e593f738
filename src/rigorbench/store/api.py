"""Values the results store takes and gives (the contract between experiment and store)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from rigorbench.model import BenchmarkCase, Metric, Series


@dataclass(frozen=True)
class VersionInfo:
    label: str
    source: str            # the revision or directory the user named
    commit: str | None     # resolved commit hash, when under git
    dirty: bool | None     # uncommitted changes, when under git


@dataclass(frozen=True)
class Execution:
    """One planned harness invocation: trial ``trial`` of version ``label``, at ``position``
    in the executed order (0-based over the whole experiment)."""

    trial: int
    label: str
    position: int


@dataclass(frozen=True)
class RunInfo:
    run_id: int
    created: str                  # ISO 8601
    status: str                   # "running" | "interrupted" | "finished"
    harness: str
    project: str
    order: str                    # "rmit" | "sequential"
    seed: int
    settings: Mapping             # RunSettings.as_dict() plus experiment settings
    versions: tuple[VersionInfo, ...]
    schedule: tuple[Execution, ...]
    wall_seconds: float | None = None
    harness_seconds: float | None = None
    tool_version: str = ""


@dataclass(frozen=True)
class ExecutionRecord:
    """A finished execution as stored (without its samples)."""

    trial: int
    label: str
    position: int
    status: str                   # "done" | "failed" | "timeout"
    started: str
    ended: str
    harness_seconds: float
    environment: Mapping[str, str] = field(default_factory=dict)
    failures: tuple[str, ...] = ()
    output_tail: str = ""
    message: str = ""
    samples: int = 0


@dataclass(frozen=True)
class TrialRecord:
    """What the store keeps of one finished execution (one trial of one version)."""

    status: str                         # done | failed | timeout
    started: str                        # ISO 8601
    ended: str
    harness_seconds: float
    series: Sequence[Series]            # every iteration measured, also of a failed trial
    environment: Mapping[str, str]
    failures: Sequence[str] = ()        # one line per failed benchmark
    output_tail: str = ""
    message: str = ""


def check_plan(versions: Sequence[VersionInfo], schedule: Sequence[Execution]) -> None:
    """A run's versions have distinct labels and its schedule names each (trial, version) once."""
    labels = [v.label for v in versions]
    if not labels or len(set(labels)) != len(labels):
        raise ValueError(f"a run needs distinct version labels, got {labels}")
    unknown = sorted({e.label for e in schedule} - set(labels))
    if unknown:
        raise ValueError(f"the schedule names versions the run does not have: {unknown}")
    pairs, positions = {(e.trial, e.label) for e in schedule}, {e.position for e in schedule}
    if len(pairs) != len(schedule) or len(positions) != len(schedule):
        raise ValueError("the schedule repeats a (trial, version) pair or a position")


@dataclass(frozen=True)
class HistoryPoint:
    """One point of a history: a benchmark case and metric at one commit of one branch on
    one kind of machine, with its summary (``n`` values, their ``mean`` and the mean's CI at
    ``confidence``; no CI for an imported number without one).

    ``run_id`` and ``label`` name the stored run and version whose samples it summarises;
    ``source`` says where it came from ("run 3 (v2)", or an imported file).
    """

    case: BenchmarkCase
    metric: Metric
    branch: str                         # "" when none was given
    machine: str                        # the machine kind (rigorbench.analysis.machines)
    commit: str
    time: str                           # the commit's time, UTC, ISO 8601
    source: str
    n: int
    mean: float
    ci_low: float | None = None
    ci_high: float | None = None
    confidence: float | None = None
    dirty: bool | None = None
    run_id: int | None = None
    label: str | None = None
    machine_facts: Mapping[str, str] = field(default_factory=dict)
    added: str = ""                     # when it was stored (set by the store)

    def __post_init__(self) -> None:
        if not self.commit:
            raise ValueError("a history point needs a commit")
        if (self.ci_low is None) != (self.ci_high is None):
            raise ValueError("a history point's CI has both bounds or none")
