"""Fixtures of the store tests: a store in tmp_path and a fully recorded run."""

from __future__ import annotations

import pytest
from storedata import new_run, record, schedule

from rigorbench.store import ResultStore


@pytest.fixture
def store_path(tmp_path):
    return tmp_path / "nested" / "dir" / "results.db"


@pytest.fixture
def store(store_path):
    with ResultStore.open(store_path) as opened:
        yield opened


@pytest.fixture
def full_run(store):
    """A run with all 6 executions recorded; returns its id."""
    run_id = new_run(store)
    for execution in schedule():
        record(store, run_id, execution)
    return run_id
