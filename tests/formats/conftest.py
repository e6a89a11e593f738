"""Shared helpers of the format tests: input files in tmp_path, golden files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.fixture
def write(tmp_path):
    """write(text_or_bytes, name="result") -> path of a new file holding it."""

    def _write(content: str | bytes, name: str = "result") -> str:
        path = tmp_path / name
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8", newline="")
        else:
            path.write_bytes(content)
        return str(path)

    return _write


def check_golden(name: str, got: str) -> None:
    """Compare with golden/<name>.txt; RIGORBENCH_REGEN=1 rewrites it; a mismatch leaves <name>.got."""
    expected_path = GOLDEN / f"{name}.txt"
    got_path = GOLDEN / f"{name}.got"
    if os.environ.get("RIGORBENCH_REGEN") == "1":
        expected_path.write_text(got, encoding="utf-8")
        got_path.unlink(missing_ok=True)
        return
    if not expected_path.exists():
        got_path.write_text(got, encoding="utf-8")
        pytest.fail(f"no golden file {expected_path}; wrote {got_path} (run with RIGORBENCH_REGEN=1 to accept)")
    if got != expected_path.read_text(encoding="utf-8"):
        got_path.write_text(got, encoding="utf-8")
        pytest.fail(
            f"{name}: output differs from {expected_path}; wrote {got_path} "
            f"(diff them; run with RIGORBENCH_REGEN=1 to accept)"
        )
    got_path.unlink(missing_ok=True)


@pytest.fixture
def golden():
    """golden(name, text): the golden-file check as a fixture."""
    return check_golden
