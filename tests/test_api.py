"""The library API without the CLI: every command's work is a function of ``rigorbench.api``
that returns values (nothing printed), called here in-process on real data."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rigorbench import api
from rigorbench.errors import InputError, UserError

ROOT = Path(__file__).resolve().parents[1]
JMH = ROOT / "tests" / "testdata" / "jmh"
AT = "2026-03-01T12:00:00+00:00"


def write_otava_csv(path: Path, rows: int = 50) -> Path:
    """latency steps from 100 to 120 at row 30 (commit c030); throughput falls at row 20."""
    rng = np.random.default_rng(1)
    lines = ["time,commit,branch,latency,throughput\n"]
    for i in range(rows):
        latency = (100.0 if i < 30 else 120.0) * rng.lognormal(0, 0.01)
        throughput = (1000.0 if i < 20 else 900.0) * rng.lognormal(0, 0.01)
        lines.append(f"2026-03-{1 + i // 24:02d}T{i % 24:02d}:00:00Z,c{i:03d},main,{latency:.4f},{throughput:.4f}\n")
    path.write_text("".join(lines))
    return path


@pytest.fixture
def aa_store(tmp_path) -> str:
    """A real A/A run of examples/jmh-demo: versions A and B, 20 trials each."""
    db = tmp_path / "aa.db"
    with gzip.open(ROOT / "tests" / "testdata" / "stores" / "aa-demo.db.gz", "rb") as source, open(db, "wb") as target:
        shutil.copyfileobj(source, target)
    return str(db)


def test_import_a_csv_history_and_read_its_changes_from_the_store(tmp_path):
    csv, store = write_otava_csv(tmp_path / "nightly.csv"), str(tmp_path / "history.db")
    points, series, skipped = api.import_history(store, str(csv), higher_is_better=re.compile("throughput"))
    assert (len(points), len(series), skipped) == (100, 2, 0)
    view = api.history_view(store)
    assert view.total == 100 and {s.metric.name for s in view.series} == {"latency", "throughput"}
    assert [len(s.points) for s in view.series] == [50, 50]
    found = api.history_changes(store, selection=api.Selection(metrics=("latency",)))
    (latency,) = found.series
    (change,) = latency.changes
    assert latency.series.commits[change.index] == "c030" and change.index == 30
    from_file = api.history_changes(csv=str(csv), selection=api.Selection(metrics=("latency",)))
    assert [c.index for c in from_file.series[0].changes] == [30]
    assert api.render_history(found, "json").startswith("{") and not found.fails("never")


def test_result_files_become_points_and_a_run_once(tmp_path):
    store = str(tmp_path / "history.db")
    origin = api.history_origin("abc1234", time="2026-03-01T12:00:00Z", branch="main")   # not a commit here: as named
    assert (origin.commit, origin.time, origin.branch) == ("abc1234", AT, "main")
    files = [str(JMH / "v1-trial1.json"), str(JMH / "v1-trial2.json")]
    points, run_id = api.add_history_files(store, files, origin)
    assert points and {p.commit for p in points} == {"abc1234"} and all(p.ci_low <= p.mean <= p.ci_high for p in points)
    ((info, counts),) = api.list_runs(store)
    assert (info.run_id, info.status, counts["executions_done"]) == (run_id, "finished", 2)
    with pytest.raises(UserError):
        api.add_history_files(store, files, origin)   # the same points twice: refused, nothing stored
    assert len(api.list_runs(store)) == 1 and api.history_view(store).total == len(points)
    again, moved, label = api.add_history_run(store, run_id, commit="def5678", time="2026-03-02T00:00:00Z", branch="main")
    assert (moved.commit, label, len(again)) == ("def5678", info.versions[0].label, len(points))
    assert api.history_view(store).total == 2 * len(points)


def test_origin_outside_git_is_now_and_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    notes = []
    origin = api.history_origin("v1.2", note=notes.append)
    assert origin.commit == "v1.2" and notes == [f"v1.2 is not looked up in git here; its points are at {origin.time} (now)"]
    with pytest.raises(UserError, match="not in a git repository"):
        api.history_origin("v1.2", repo=str(tmp_path))


def test_a_stored_run_compared_listed_exported_and_checked(aa_store, tmp_path):
    result = api.compare_stored(aa_store, "A", "B", settings=api.Settings(resamples=500))
    assert result.comparisons and result.sequential is None
    assert {c.verdict.value for c in result.comparisons} <= {"unchanged", "inconclusive", "faster", "slower"}
    (info, counts), = api.list_runs(aa_store, 1)
    assert [v.label for v in info.versions] == ["A", "B"] and counts["executions_done"] == 40
    with pytest.raises(UserError, match=r"no run 7 \(runs: 1\)"):
        api.list_runs(aa_store, 7)
    assert json.loads(api.render_runs(api.list_runs(aa_store), "json"))["runs"][0]["run_id"] == 1
    written = api.export_run(aa_store, "jmh-json", tmp_path / "out")
    assert len(written) == 40 and all(path.is_file() for path in written)
    exported = api.load_results([p for p in written if "-A-" in p.name], label="A")
    stored, = api.load_stored(api.read_store(aa_store), ["A"])
    assert set(exported.series) == set(stored.series)
    check = api.check_store(aa_store)
    assert check.sound and api.render_check(check).endswith(": sound\n")


def test_one_version_of_a_run_and_the_runs_facts(aa_store):
    with pytest.raises(UserError, match="choose one with --version"):
        api.load_version(aa_store)
    data, seconds = api.load_version(aa_store, "B")
    assert data.label == "B" and seconds is not None and seconds > 0
    datasets, facts = api.load_run(aa_store)
    assert [d.label for d in datasets] == ["A", "B"] and facts["design"].startswith("20 trials")


def test_an_adaptive_runs_level_is_the_looks_unless_one_is_chosen():
    from rigorbench.analysis.stopping import UntilDecided, final_settings
    from rigorbench.store.api import RunSetup

    design = UntilDecided(5, 20, analysis=api.Settings(confidence=0.99))
    adaptive, fixed = RunSetup(rule=design.as_dict()), RunSetup()
    settings, sequential = final_settings(adaptive, api.Settings(), level_chosen=False)
    assert (settings.confidence, settings.interval, sequential) == (design.per_look, "t", design.as_dict())
    assert final_settings(adaptive, api.Settings(), level_chosen=True) == (api.Settings(), None)
    assert final_settings(fixed, api.Settings(), level_chosen=False) == (api.Settings(), None)
    legacy = RunSetup.of({"trials": 20, "until_decided": {k: v for k, v in design.as_dict().items() if k != "kind"}})
    assert final_settings(legacy, api.Settings())[0].confidence == design.per_look   # a run stored before the setup key


def test_lint_its_verdict_and_what_it_refuses(tmp_path):
    result = api.lint([ROOT / "examples" / "jmh-lint"])
    assert result.findings and result.fails("warning") and not result.fails("never")
    assert all(f.severity != "info" for f in result.without_info().findings)
    assert api.render_rule(api.rule_named("loop")).startswith("LOOP [")
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(InputError, match="not a Java source or Go test file"):
        api.lint([tmp_path / "notes.txt"])


def test_importing_the_api_and_its_settings_loads_no_scipy():
    probe = ("import sys, rigorbench.api as api; cheap = 'numpy' not in sys.modules; api.Settings; api.DEFAULT_STORE;"
             "print(cheap, 'scipy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False"]
    assert set(api.__all__) <= set(dir(api)) and all(getattr(api, name).__doc__ for name in api.__all__
                                                     if callable(getattr(api, name)) and not isinstance(getattr(api, name), type))
