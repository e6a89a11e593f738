"""Fuzzing ``rigorbench.toml``: every key with values of every wrong type, and random text.

The contract: the file loads, or loading raises an InputError of one line that names the
file (and the line of the key when a key is at fault); the CLI exits 2 with exactly one
``rigorbench: error:`` line. Never another exception.
"""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rigorbench.cli import main
from rigorbench.errors import InputError, UserError
from rigorbench.experiment.config import load_config
from rigorbench.experiment.config_schema import TABLES

VALID = {
    "experiment": {"project": '"."', "trials": "3", "seed": "1", "baseline": '"old"'},
    "build": {"module": '"perf"'},
    "jmh": {"forks": "2", "iterations": "3", "params": '{ size = "10" }', "timeout": '"1m"'},
    "compare": {"threshold": '"1%"'},
}
VERSIONS = [{"label": '"old"', "source": '"v1"'}, {"label": '"new"', "source": '"v2"'}]
WRONG = ['"abc"', "-3", "0", "true", "1.5", "nan", "inf", "{ a = 1 }", "{ a = { b = [] } }", "[1, 2]", "[]",
         '[""]', "99999999999999999999", '"' + "x" * 5000 + '"', "[" * 200 + "]" * 200, "1979-05-27"]


def render(tables: dict, versions: list[dict]) -> str:
    lines = []
    for name, table in tables.items():
        lines.append(f"[{name}]")
        lines += [f"{key} = {raw}" for key, raw in table.items()]
    for version in versions:
        lines.append("[[versions]]")
        lines += [f"{key} = {raw}" for key, raw in version.items()]
    return "\n".join(lines) + "\n"


def with_value(table: str, key: str, raw: str) -> str:
    tables = {name: dict(values) for name, values in VALID.items()}
    versions = [dict(v) for v in VERSIONS]
    target = versions[1] if table == "versions" else tables.setdefault(table, {})
    target[key] = raw
    return render(tables, versions)


def check_load(path) -> InputError | None:
    try:
        load_config(path)
    except UserError as error:
        assert isinstance(error, InputError) and str(error).startswith(f"{path}"), str(error)
        assert "\n" not in str(error)
        return error
    return None


def check_cli(path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["run", str(path)], out, err) == 2
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"rigorbench: error: {path}"), err.getvalue()


def test_the_valid_base_loads(tmp_path):
    path = tmp_path / "rigorbench.toml"
    path.write_text(render(VALID, VERSIONS))
    assert load_config(path).plan.trials == 3


KEYS = [(table, key) for table, keys in TABLES.items() for key in keys]


@pytest.mark.parametrize("table, key", KEYS, ids=[f"{t}.{k}" for t, k in KEYS])
def test_every_key_with_wrong_values(tmp_path, table, key):
    path = tmp_path / "rigorbench.toml"
    rejected = 0
    for raw in WRONG:
        path.write_text(with_value(table, key, raw))
        error = check_load(path)
        if error is None:
            continue
        rejected += 1
        if key in error.message:  # an error about this key points at its line
            assert error.line is not None and f"{key} = {raw}" in path.read_text().split("\n")[error.line - 1], str(error)
        if rejected == 1:
            check_cli(path)
    assert rejected >= 3, f"{table}.{key} accepted almost every wrong value"


def test_an_unknown_key_in_every_table_suggests_the_right_one(tmp_path):
    path = tmp_path / "rigorbench.toml"
    for table, key in KEYS:
        typo = key[:-1] + ("x" if key[-1] != "x" else "y")
        path.write_text(with_value(table, typo, '"v"'))
        error = check_load(path)
        assert error is not None and f"did you mean {key!r}?" in error.message, (table, key, error)
        assert path.read_text().split("\n")[error.line - 1].startswith(f"{typo} = ")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=400))
def test_random_text(tmp_path, text):
    path = tmp_path / "rigorbench.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    check_load(path)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.floats(0, 1), cut=st.integers(0, 6), insert=st.text(max_size=6))
def test_random_damage_to_a_valid_file(tmp_path, where, cut, insert):
    text = render(VALID, VERSIONS)
    at = int(where * len(text))
    path = tmp_path / "rigorbench.toml"
    path.write_text(text[:at] + insert + text[at + cut:], encoding="utf-8", errors="surrogatepass")
    check_load(path)
