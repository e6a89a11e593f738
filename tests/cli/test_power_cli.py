"""``rigorbench power`` end to end on pa CSV files with known truth, and its prediction
checked against an independent comparison of other trials of the same data. The whole text
and JSON output (and "too few trials") is checked against golden files in
test_golden_output.py."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from rigorbench.analysis.compare import compare_datasets
from rigorbench.analysis.dataset import load_dataset
from rigorbench.analysis.settings import Settings
from rigorbench.cli import main

HEADER = "project;commit;benchmark;params;instance;trial;fork;iteration;mode;unit;value_count;value\n"


def write_trials(path: Path, rng, trials: int, factor: float = 1.0, trial_sd: float = 0.3) -> Path:
    lines = [HEADER]
    for t in range(trials):
        shift = rng.normal(0, trial_sd)
        for bench, mean in (("demo.Quiet.run", 100.0), ("demo.Noisy.run", 100.0)):
            noise = 0.5 if bench == "demo.Quiet.run" else 30.0
            for f in range(2):
                for i, v in enumerate(factor * (mean + shift + rng.normal(0, noise, 10))):
                    lines.append(f"p;c;{bench};;i;{t + 1};{f + 1};{i + 1};avgt;ns/op;1;{v:.5f}\n")
    path.write_text("".join(lines))
    return path


def power(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["power", *args], out, err)
    return code, out.getvalue(), err.getvalue()


def test_json_fields_and_the_summary(tmp_path):
    path = write_trials(tmp_path / "v1.csv", np.random.default_rng(1), trials=10)
    code, out, err = power(str(path), "--format", "json", "--simulations", "40", "--target", "5%")
    assert code == 0, err
    document = json.loads(out)
    assert (document["tool"], document["format_version"], document["command"]) == ("rigorbench", 1, "power")
    assert document["simulations"] == 40 and document["seed"] == 20240601 and document["test"] == "bootstrap"
    by_name = {b["benchmark"]: b for b in document["benchmarks"]}
    quiet, noisy = by_name["demo.Quiet.run"], by_name["demo.Noisy.run"]
    for b in (quiet, noisy):
        for key in ("benchmark", "params", "metric", "strategy", "group_size", "simulations",
                    "false_positive_rate", "detection_rate", "mds_pct", "recommended_trials"):
            assert key in b
        assert b["strategy"] == "trial" and b["group_size"] == 5 and b["simulations"] == 40
        assert set(b["detection_rate"]) >= {"0.1", "1", "5", "100"}
    assert quiet["mds_pct"] is not None and quiet["mds_pct"] <= 5
    assert quiet["recommended_trials"] is not None and quiet["recommended_trials"] <= 5
    assert noisy["mds_pct"] is None or noisy["mds_pct"] > quiet["mds_pct"]
    # Numbers, not a sentence: the quiet benchmark detects the default 5% target.
    summary = document["summary"]
    assert summary["target_pct"] == 5 and summary["benchmarks_judged"] == 2 and summary["too_few_trials"] == 0
    assert 1 <= summary["able_to_detect_target"] <= 2 and summary["max_false_positive_rate"] == 0.05
    assert document["suite_trials"] == max(b["recommended_trials"] for b in document["benchmarks"] if b["recommended_trials"])
    assert document["trial_seconds"] is None and document["suite_seconds"] is None  # files carry no timing


def test_the_recommendation_is_never_a_size_compare_calls_untrustworthy(tmp_path):
    """The quiet benchmark detects a 50% slowdown from 2 trials per version with the percentile
    interval; with the expanded one (the default) 2 units get no correction and compare marks
    their verdicts as untrustworthy, so power recommends at least 3."""
    path = write_trials(tmp_path / "v1.csv", np.random.default_rng(1), trials=10)

    def recommended(*extra: str) -> int:
        code, out, err = power(str(path), "--format", "json", "--simulations", "40", "--target", "50%", *extra)
        assert code == 0, err
        return {b["benchmark"]: b for b in json.loads(out)["benchmarks"]}["demo.Quiet.run"]["recommended_trials"]

    assert recommended("--interval", "percentile") == 2
    assert recommended() == 3


def test_the_reported_mds_holds_in_an_independent_comparison(tmp_path):
    """Power from trials 1-10; then a compare of other trials: A/A finds nothing, and a
    slowdown of twice the MDS planted in a contender is found."""
    rng = np.random.default_rng(3)
    first = write_trials(tmp_path / "first.csv", rng, trials=10)
    document = json.loads(power(str(first), "--format", "json", "--simulations", "40")[1])
    mds = next(b for b in document["benchmarks"] if b["benchmark"] == "demo.Quiet.run")["mds_pct"] / 100
    settings = Settings(resamples=2000)
    a = load_dataset([write_trials(tmp_path / "a.csv", rng, trials=5)], "a")
    b = load_dataset([write_trials(tmp_path / "b.csv", rng, trials=5)], "b")
    slow = load_dataset([write_trials(tmp_path / "slow.csv", rng, trials=5, factor=1 + 2 * mds)], "slow")
    quiet = lambda report: next(c for c in report.comparisons if c.case.name == "demo.Quiet.run")  # noqa: E731
    assert quiet(compare_datasets(a, b, settings)).verdict.value in ("unchanged", "inconclusive")
    assert quiet(compare_datasets(a, slow, settings)).verdict.value == "slower"


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "give result files of one version, or --store DB (see 'rigorbench power --help')"),
        (["x.csv", "--target", "1%"], "--target 1.0% must be above --threshold 1.0%"),
        (["x.csv", "--slowdowns", "1,abc"], "--slowdowns"),
        (["x.csv", "--strategy", "random"], "invalid choice"),
    ],
)
def test_bad_usage_exit_2(args, message):
    code, _, err = power(*args)
    assert code == 2 and message in err and len(err.splitlines()) == 1
