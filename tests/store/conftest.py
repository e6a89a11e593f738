"""Fixtures of the store tests: a store in tmp_path and a fully recorded run; modules that
hold for every backend use ``backend_store`` as their ``store`` (a SQLite file, then a fresh
database on the session's real PostgreSQL server)."""

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


@pytest.fixture(params=["sqlite", "postgresql"])
def backend_store(request, store_path):
    where = store_path if request.param == "sqlite" else request.getfixturevalue("pg_url")
    with ResultStore.open(where) as opened:
        yield opened


@pytest.fixture
def full_run(store):
    """A run with all 6 executions recorded; returns its id."""
    run_id = new_run(store)
    for execution in schedule():
        record(store, run_id, execution)
    return run_id
