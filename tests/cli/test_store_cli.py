"""``ab`` refuses a store it cannot keep results in before building or running anything."""

from __future__ import annotations

import io
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from rigorbench.cli import main


@pytest.fixture
def project(tmp_path) -> Path:
    for label in ("v1", "v2"):
        (tmp_path / "proj" / label).mkdir(parents=True)
    return tmp_path / "proj"


def ab(project: Path, store) -> tuple[int, str]:
    err = io.StringIO()
    code = main(["ab", str(project), "--base", "v1", "--contender", "v2", "--trials", "2", "--store", str(store),
                 "--no-lint", "--resamples", "200"], io.StringIO(), err)
    return code, err.getvalue()


@pytest.fixture
def made_store(project, fake, tmp_path):
    """A real store written by ab (with the fake harness), copied for damaging."""
    store = tmp_path / "made.db"
    code, err = ab(project, store)
    assert code in (0, 1), err
    fake.calls.clear()
    copy = tmp_path / "results.db"
    shutil.copyfile(store, copy)
    return copy


def overwrite_middle(path) -> None:
    with open(path, "r+b") as handle:
        handle.seek(os.path.getsize(path) // 2)
        handle.write(b"\x00\xff" * 4096)


def drop_samples(path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE samples")
    conn.close()


@pytest.mark.parametrize("spoil, message", [(overwrite_middle, "damaged ("), (drop_samples, "damaged (no table samples")])
def test_ab_refuses_a_damaged_store_before_running(project, fake, made_store, spoil, message):
    spoil(made_store)
    before = made_store.read_bytes()
    code, err = ab(project, made_store)
    assert code == 2 and fake.calls == []
    lines = err.strip().splitlines()
    assert lines[-1].startswith(f"rigorbench: error: {made_store}: {message}"), err
    assert "rigorbench store recover" in lines[-1]
    assert made_store.read_bytes() == before


def test_ab_refuses_a_directory_or_fifo_as_store_before_running(project, fake, tmp_path):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    code, err = ab(project, folder)
    assert code == 2 and fake.calls == [] and "is a directory" in err
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "fifo.db"
        os.mkfifo(fifo)
        code, err = ab(project, fifo)
        assert code == 2 and fake.calls == [] and "is not a regular file" in err


@pytest.mark.skipif(os.geteuid() == 0 if hasattr(os, "geteuid") else True, reason="root ignores file permissions")
def test_ab_refuses_a_read_only_store_before_running(project, fake, made_store):
    made_store.chmod(0o444)
    try:
        code, err = ab(project, made_store)
    finally:
        made_store.chmod(0o644)
    assert code == 2 and fake.calls == [] and "results store is read-only" in err


def test_ab_stores_into_a_sound_existing_store(project, fake, made_store):
    code, err = ab(project, made_store)
    assert code in (0, 1), err
    assert len(fake.calls) == 4
    out = io.StringIO()
    assert main(["store", "check", str(made_store)], out, io.StringIO()) == 0
    assert "2 runs" in out.getvalue()
