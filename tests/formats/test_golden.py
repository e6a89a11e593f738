"""Golden dumps of the real harness output in tests/testdata (made by this project).

Each result file there is read and dumped with :func:`dump_result_file`; the dump must equal
``golden/<folder>-<file>.txt``. Regenerate with ``RIGORBENCH_REGEN=1``; a mismatch leaves
``<name>.got`` next to the golden file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rigorbench.formats import read_result_file
from tests.formats.dump import dump_result_file

TESTDATA = Path(__file__).resolve().parents[1] / "testdata"
GOLDEN = Path(__file__).resolve().parent / "golden"
# Every harness output file; stores/ holds results stores (SQLite), not harness output.
INPUTS = sorted(p for p in TESTDATA.glob("*/*") if p.is_file() and not p.name.startswith(".")
                and p.parent.name != "stores") if TESTDATA.is_dir() else []


def golden_name(path: Path) -> str:
    return f"{path.parent.name}-{path.name}"


@pytest.mark.parametrize("path", INPUTS, ids=[golden_name(p) for p in INPUTS])
def test_golden_dump(path, golden):
    golden(golden_name(path), dump_result_file(read_result_file(path)))


def test_every_golden_file_has_its_input():
    names = {golden_name(p) for p in INPUTS}
    stale = sorted(p.name for p in GOLDEN.glob("*.txt") if p.name[: -len(".txt")] not in names)
    assert not stale, f"golden files without an input in tests/testdata: {stale}"
