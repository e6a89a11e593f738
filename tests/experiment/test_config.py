"""``rigorbench.toml`` loading: values, defaults, and errors that name the file and line."""

from __future__ import annotations

import pytest

from rigorbench.errors import InputError
from rigorbench.experiment.config import load_config

GOOD = """\
[experiment]
project = "bench"
trials = 4
seed = 9
baseline = "old"

[[versions]]
label = "old"
source = "v1"

[[versions]]
label = "new"
source = "HEAD"

[jmh]
forks = 3
iteration_time = "200ms"
include = "Stats"
params = { size = "100,1000" }
timeout = "2m"

[compare]
threshold = "2%"
fail_on = "regression"
"""


def write(tmp_path, text):
    path = tmp_path / "rigorbench.toml"
    path.write_text(text)
    return path


def test_a_full_file(tmp_path):
    config = load_config(write(tmp_path, GOOD))
    plan = config.plan
    assert plan.project == str(tmp_path / "bench")
    assert plan.trials == 4 and plan.seed == 9 and plan.order == "rmit"
    assert [(v.label, v.source) for v in plan.versions] == [("old", "v1"), ("new", "HEAD")]
    assert plan.settings.forks == 3 and plan.settings.iteration_time == "200ms"
    assert plan.settings.include == ("Stats",) and plan.settings.params == (("size", "100,1000"),)
    assert plan.settings.timeout_s == 120
    assert config.baseline == "old" and config.store == tmp_path / ".rigorbench/results.db"
    assert config.compare == {"threshold": "2%", "fail_on": "regression"}


@pytest.mark.parametrize("text, line, words", [
    (GOOD.replace("forks = 3", "forkz = 3"), 16, "unknown key 'forkz'"),
    (GOOD.replace('iteration_time = "200ms"', 'iteration_time = "fast"'), 17, "not a time"),
    (GOOD.replace('baseline = "old"', 'baseline = "older"'), 5, "not one of the version labels"),
    (GOOD.replace("trials = 4", "trials = [4"), 4, "not valid TOML"),
])
def test_errors_name_the_file_and_line(tmp_path, text, line, words):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as raised:
        load_config(path)
    assert raised.value.line == line, str(raised.value)
    assert words in str(raised.value)
    assert str(raised.value).startswith(f"{path}:{line}: ")


def test_one_version_is_not_an_experiment(tmp_path):
    text = GOOD[: GOOD.index("[[versions]]\nlabel = \"new\"")]
    with pytest.raises(InputError, match="at least two"):
        load_config(write(tmp_path, text))


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_config(tmp_path / "nope.toml")


def test_compare_table_values_are_checked_like_flags(tmp_path):
    import io

    from rigorbench.cli import main

    (tmp_path / "v1").mkdir()
    (tmp_path / "v2").mkdir()
    path = write(tmp_path, GOOD.replace('project = "bench"', 'project = "."').replace('fail_on = "regression"', 'fail_on = "sometimes"'))
    err = io.StringIO()
    assert main(["run", str(path)], io.StringIO(), err) == 2
    assert "fail_on: 'sometimes' is not one of regression, change, never" in err.getvalue()
