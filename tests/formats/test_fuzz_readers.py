"""Fuzzing every reader with bad files: either it reads them, or it says why in one line.

The contract (ARCHITECTURE.md, "exit codes"): bad input is a :class:`UserError` (in the CLI:
exit 2 and exactly one stderr line ``rigorbench: error: ...``), never another exception,
and never a hang. The corpus is made from this project's real harness output in
tests/testdata: truncated at many points, each JSON value replaced by values of every wrong
type, huge and non-finite numbers, deep nesting, BOM, NUL bytes, invalid UTF-8, gzip damage;
hypothesis adds random bytes and random mutations of the real files.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigorbench.cli import main
from rigorbench.errors import UserError
from rigorbench.formats import READERS, read_result_file

TESTDATA = Path(__file__).resolve().parents[1] / "testdata"
JMH_JSON = (TESTDATA / "jmh" / "v1-trial1.json").read_bytes()
SAMPLE_JSON = (TESTDATA / "jmh" / "v1-sample.json").read_bytes()
JMH_LOG = (TESTDATA / "jmh" / "v1-trial1.log").read_bytes()
GO = (TESTDATA / "go" / "bench.txt").read_bytes()
PA = (
    b"project;commit;benchmark;params;instance;trial;fork;iteration;mode;unit;value_count;value\n"
    b"p;c1;a.B.c;size=1;i1;1;1;1;avgt;ns/op;1;2.5\np;c1;a.B.c;size=1;i1;1;1;2;avgt;ns/op;1;2.7\n"
    b"p;c1;a.B.c;size=1;i1;1;2;1;avgt;ns/op;1;2.4\np;c1;a.B.c;size=1;i1;1;2;2;avgt;ns/op;2;2.6\n"
)
REAL = {"jmh.json": JMH_JSON, "sample.json": SAMPLE_JSON, "jmh.log": JMH_LOG, "go.txt": GO, "pa.csv": PA}

HUGE_INT = "9" * 5000
WRONG_VALUES = ["null", "true", '"x"', "-5", "0", "1e999", HUGE_INT, "{}", "[]", '[["x"]]', '{"a": [1]}',
                '"NaN"', "-1e-300", "[" * 3000 + "]" * 3000]


def check_read(path: Path, format: str | None = None) -> str:
    """Read ``path``; return "ok" or the one-line error. Anything else fails the test."""
    try:
        read_result_file(path, format=format)
    except UserError as error:
        text = str(error)
        assert text and "\n" not in text and "\r" not in text, repr(text)
        return "error"
    return "ok"


def check_cli(argv: list[str], bad: Path) -> int:
    """Run the CLI in-process; exit 2 must be one error line about ``bad``."""
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out, err)
    assert "Traceback" not in err.getvalue()
    if code == 2:
        lines = err.getvalue().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"rigorbench: error: {bad}"), err.getvalue()
    else:
        assert code in (0, 1), (code, err.getvalue())
    return code


# -- a corpus of bad files ------------------------------------------------------------------

def _json_positions(node, path=()):
    """Every position (path of keys/indices) in a JSON document."""
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _json_positions(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _json_positions(value, (*path, index))


def _replaced(document, path, raw: str) -> bytes:
    """``document`` with the value at ``path`` replaced by the JSON text ``raw``."""
    marker = "\u0000MARK\u0000"
    copy = json.loads(json.dumps(document))
    if not path:
        return raw.encode()
    parent = copy
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = marker
    return json.dumps(copy, indent=2).replace(json.dumps(marker), raw).encode()


def wrong_type_corpus() -> list[tuple[str, bytes]]:
    """A real JMH JSON file with each of its values, in turn, replaced by wrong ones.

    To keep the count reasonable, only the first fork of rawData is visited in full."""
    document = json.loads(JMH_JSON)[:2]
    files = []
    for path in _json_positions(document):
        if len(path) >= 5 and path[2] in ("rawData", "rawDataHistogram") and path[3] != 0:
            continue
        for raw in WRONG_VALUES:
            files.append((f"wrong{path}={raw[:12]}", _replaced(document, path, raw)))
    return files


def _handmade() -> list[tuple[str, bytes]]:
    entry = json.loads(JMH_JSON)[0]
    deep_obj = '{"a": ' * 5000 + "1" + "}" * 5000
    return [
        ("empty", b""), ("blank", b" \n\t\n"), ("bom only", b"\xef\xbb\xbf"), ("nul", b"\x00" * 10),
        ("deep list", b"[" * 5000 + b"]" * 5000), ("deep object", f"[{deep_obj}]".encode()),
        ("deep inside", JMH_JSON.replace(b'"threads"', f'"x": {deep_obj}, "threads"'.encode(), 1)),
        ("huge int", JMH_JSON.replace(b'"rawData" : [\n', f'"rawData" : [[{HUGE_INT}],\n'.encode(), 1)),
        ("1e999 score", json.dumps([{**entry, "primaryMetric": {**entry["primaryMetric"], "rawData": [[1.0]]}}])
         .replace("[[1.0]]", "[[1e999]]").encode()),
        ("negative", json.dumps([{**entry, "primaryMetric": {**entry["primaryMetric"], "rawData": [[-5.0]]}}]).encode()),
        ("duplicate", json.dumps([entry, entry]).encode()),
        ("nan literal", json.dumps([entry]).replace('"rawData": [[', '"rawData": [[NaN, Infinity, ', 1).encode()),
        ("log huge", JMH_LOG.replace(b"Iteration   1: ", f"Iteration   1: {HUGE_INT}".encode(), 1)),
        ("log huge index", JMH_LOG.replace(b"Iteration   1:", f"Iteration {HUGE_INT}:".encode(), 1)),
        ("log 1e999", JMH_LOG.replace(b"Iteration   2: ", b"Iteration   2: 1e999 ", 1)),
        ("log negative", JMH_LOG.replace(b"Iteration   2: ", b"Iteration   2: -", 1)),
        ("log twice", JMH_LOG + JMH_LOG),
        ("go huge", GO.replace(b"1008 ns/op", f"{HUGE_INT} ns/op".encode())),
        ("go 1e999", GO.replace(b"1008 ns/op", b"1e999 ns/op")),
        ("go negative", GO.replace(b"1008 ns/op", b"-1008 ns/op")),
        ("pa huge", PA.replace(b";1;1;2;avgt", f";1;{HUGE_INT};2;avgt".encode())),
        ("pa huge count", PA.replace(b";ns/op;2;", f";ns/op;{HUGE_INT};".encode())),
        ("pa quoted newline", PA.replace(b"a.B.c;size=1;i1;1;1;1", b'"a.B\nc";size=1;i1;1;1;1', 1)),
        ("gzip truncated", gzip.compress(JMH_JSON)[:200]),
        ("gzip of garbage", gzip.compress(b"\x00\xff" * 100)),
        ("gzip header only", b"\x1f\x8b"),
    ]


def corpus() -> list[tuple[str, bytes]]:
    files = _handmade()
    for name, data in REAL.items():
        files += [
            (f"{name} bom", b"\xef\xbb\xbf" + data),
            (f"{name} nul", data[:100] + b"\x00" + data[100:]),
            (f"{name} bad utf-8", data[:100] + b"\xff\xfe" + data[100:]),
            (f"{name} crlf", data.replace(b"\n", b"\r\n")),
            (f"{name} gzip", gzip.compress(data)),
        ]
        files += [(f"{name} cut at {n}", data[:n]) for n in range(1, len(data), max(1, len(data) // 40))]
    return files


CORPUS = corpus()


@pytest.mark.parametrize("name, data", CORPUS, ids=[name for name, _ in CORPUS])
def test_every_reader_keeps_the_contract_on_the_corpus(tmp_path, name, data):
    path = tmp_path / "input"
    path.write_bytes(data)
    check_read(path)
    for format in READERS:
        check_read(path, format)


@pytest.mark.slow   # every position of every document
def test_every_wrong_type_at_every_json_position_keeps_the_contract(tmp_path):
    outcomes = {"ok": 0, "error": 0}
    path = tmp_path / "input.json"
    for _name, data in wrong_type_corpus():
        path.write_bytes(data)
        outcomes[check_read(path)] += 1
    assert outcomes["error"] > 100 and outcomes["ok"] > 10, outcomes  # the corpus tests both sides


@pytest.mark.parametrize("name", ["deep list", "deep object", "huge int", "1e999 score", "negative", "duplicate",
                                  "log huge", "log 1e999", "log twice", "go huge", "go negative", "pa huge",
                                  "gzip truncated", "empty", "nul"])
def test_cli_gives_one_error_line_and_exit_2(tmp_path, name):
    data = dict(_handmade())[name]
    bad = tmp_path / "bad"
    bad.write_bytes(data)
    good = tmp_path / "good.json"
    good.write_bytes(JMH_JSON)
    assert check_cli(["compare", str(good), str(bad), "--resamples", "100"], bad) == 2
    assert check_cli(["analyze", str(bad), "--resamples", "100"], bad) == 2


# -- hypothesis: random bytes and random damage to real files -------------------------------

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(data=st.binary(max_size=3000))
def test_random_bytes(tmp_path, data):
    path = tmp_path / "random"
    path.write_bytes(data)
    check_read(path)


@FUZZ
@given(
    name=st.sampled_from(sorted(REAL)),
    edits=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 8), st.binary(max_size=8)), min_size=1, max_size=4),
)
def test_random_damage_to_real_files(tmp_path, name, edits):
    data = REAL[name]
    for where, cut, insert in edits:
        at = int(where * len(data))
        data = data[:at] + insert + data[at + cut:]
    path = tmp_path / "damaged"
    path.write_bytes(data)
    check_read(path)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from(["jmh.json", "jmh.log", "go.txt", "pa.csv"]),
    where=st.floats(0, 1),
    insert=st.sampled_from([b"-", b"9" * 400, b"1e999", b"\x00", b"\xff", b"[" * 2000, b"\n", b'"', b"NaN "]),
)
def test_cli_on_damaged_real_files(tmp_path, name, where, insert):
    data = REAL[name]
    at = int(where * len(data))
    path = tmp_path / "damaged"
    path.write_bytes(data[:at] + insert + data[at:])
    check_cli(["analyze", str(path), "--resamples", "100"], path)
