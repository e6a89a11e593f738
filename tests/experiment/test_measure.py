"""lint --measure's copies, plan and cleanup, with a fake A/B runner (the real one: tests/e2e/test_measure_e2e.py)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from rigorbench.analysis.compare import Comparison, ComparisonResult, SideSummary
from rigorbench.analysis.settings import Settings
from rigorbench.errors import Interrupted, UserError
from rigorbench.experiment.measure import FIXED, ORIGINAL, MeasureRequest, include_pattern, measure_findings
from rigorbench.experiment.options import QUICK_SETTINGS
from rigorbench.lint import lint_paths
from rigorbench.model import BenchmarkCase, Metric
from rigorbench.stats.bootstrap import ConfidenceInterval
from rigorbench.stats.decision import Verdict

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "jmh-measure"
DEAD = "dev.rigorbench.measure.DeadCodeBenchmark.measureWrong"
LOOP = "dev.rigorbench.measure.ScrambleBenchmark.scrambleAll"
SOURCE = Path("src/main/java/dev/rigorbench/measure/DeadCodeBenchmark.java")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout


@pytest.fixture(autouse=True)
def scratch_root(tmp_path, monkeypatch) -> Path:
    """The temporary folder the measurement's copies go to, watched by every test."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


@pytest.fixture
def project(tmp_path) -> Path:
    return Path(shutil.copytree(EXAMPLE, tmp_path / "jmh-measure"))


def request(project: Path, **given) -> MeasureRequest:
    return MeasureRequest(str(project), QUICK_SETTINGS, 5, 1, Settings(), **given)


def comparison(name: str, verdict: Verdict, estimate: float, low: float, high: float) -> Comparison:
    side = SideSummary(10, 1.0, 1.0, ConfidenceInterval(1.0, 0.9, 1.1, 0.99), 0.01, 5, 5)
    return Comparison(BenchmarkCase("jmh", name), Metric("time", "ns/op", False, primary=True), side, side,
                      ConfidenceInterval(estimate, low, high, 0.99), 0.01, 0.9, "large", verdict)


class FakeRunner:
    """Checks what the real runner would get and answers with fixed comparisons."""

    def __init__(self, fail: BaseException | None = None) -> None:
        self.fail, self.plan = fail, None

    def __call__(self, plan, store, reporter, settings, build_cache):
        self.plan = plan
        self.original, self.fixed = (Path(v.source) for v in plan.versions)
        self.texts = ((self.original / SOURCE).read_text(), (self.fixed / SOURCE).read_text())
        self.worktree = (self.original.parent / ".git").is_file()   # a git worktree's .git is a file
        if self.fail is not None:
            raise self.fail
        return 7, ComparisonResult(ORIGINAL, FIXED, settings, (
            comparison(DEAD, Verdict.SLOWER, 45.0, 8.0, 270.0), comparison(LOOP, Verdict.UNCHANGED, 1.0, 0.995, 1.006)))


def test_each_finding_gets_its_benchmarks_measured_effect_and_the_copies_are_removed(project, scratch_root):
    result = lint_paths([project])
    runner = FakeRunner()
    measured = measure_findings(result, request(project), Quiet(), runner)
    assert [v.label for v in runner.plan.versions] == [ORIGINAL, FIXED]
    assert "bh.consume(log(x))" not in runner.texts[0] and "bh.consume(log(x))" in runner.texts[1]
    assert "bh.consume" not in (project / SOURCE).read_text()        # the project is untouched
    assert not runner.worktree                                       # not in git: a plain copy
    assert sorted(runner.plan.settings.include) == sorted([include_pattern(DEAD, "DeadCodeBenchmark.measureWrong"),
                                                           include_pattern(LOOP, "ScrambleBenchmark.scrambleAll")])
    verdicts = {f.benchmark: (i.verdict, i.ratio.estimate) for f, i in measured.impacts.items()}
    assert verdicts == {"DeadCodeBenchmark.measureWrong": ("confirmed", 45.0), "ScrambleBenchmark.scrambleAll": ("no_effect", 1.0)}
    assert measured.run_id is None and measured.store is None    # a temporary store is not named
    assert list(scratch_root.iterdir()) == []


def test_a_committed_project_is_measured_in_worktrees_that_are_removed(tmp_path, scratch_root):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo / "bench")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "benchmarks")
    runner = FakeRunner()
    measure_findings(lint_paths([repo / "bench"]), request(repo / "bench", store=str(tmp_path / "kept.db")), Quiet(), runner)
    assert runner.worktree and runner.original.name == "bench"   # a worktree of HEAD, the project inside
    assert len(git(repo, "worktree", "list").splitlines()) == 1
    assert list(scratch_root.iterdir()) == [] and (tmp_path / "kept.db").is_file()


def test_an_uncommitted_change_is_measured_from_a_plain_copy(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo / "bench")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "benchmarks")
    source = repo / "bench" / SOURCE
    source.write_text(source.read_text().replace("1.75", "1.5"))
    runner = FakeRunner()
    measure_findings(lint_paths([repo / "bench"]), request(repo / "bench"), Quiet(), runner)
    assert "1.5;" in runner.texts[0] and not runner.worktree


@pytest.mark.parametrize("failure", [KeyboardInterrupt(), UserError("version fixed: build failed")])
def test_ctrl_c_or_an_error_leaves_no_copy_behind(project, scratch_root, failure):
    runner = FakeRunner(fail=failure)
    with pytest.raises(type(failure)):
        measure_findings(lint_paths([project]), request(project), Quiet(), runner)
    assert runner.plan is not None and list(scratch_root.iterdir()) == []


def test_an_interrupted_run_does_not_offer_a_resume_that_cannot_work(project, scratch_root, tmp_path):
    runner = FakeRunner(fail=Interrupted("interrupted; 3 of 10 executions are stored. Resume with: rigorbench ab --resume 1"))
    with pytest.raises(Interrupted) as caught:
        measure_findings(lint_paths([project]), request(project, store=str(tmp_path / "kept.db")), Quiet(), runner)
    assert "--resume" not in str(caught.value) and "cannot be resumed" in str(caught.value)
    assert str(tmp_path / "kept.db") in str(caught.value) and list(scratch_root.iterdir()) == []


def test_findings_that_cannot_be_measured_say_why_and_nothing_runs(tmp_path):
    # examples/jmh-lint: no pom.xml, and findings of every kind (not fixable, FORK, RETU ...).
    project = Path(shutil.copytree(ROOT / "examples" / "jmh-lint", tmp_path / "jmh-lint"))
    result = lint_paths([project], rules=["INVO", "FORK"])
    measured = measure_findings(result, request(project), Quiet(), FakeRunner(fail=AssertionError("ran")))
    reasons = {f.rule: i.reason for f, i in measured.impacts.items()}
    assert reasons["INVO"] == "not fixable by --fix" and "forks of its own" in reasons["FORK"]
    assert {i.verdict for i in measured.impacts.values()} == {"not_measured"}
    with pytest.raises(UserError, match="neither a Maven project"):   # a fixable RETU must be built
        measure_findings(lint_paths([project], rules=["RETU"]), request(project), Quiet(), FakeRunner())


def test_bench_chooses_findings_by_their_full_benchmark_name(project):
    runner = FakeRunner()
    measured = measure_findings(lint_paths([project]), request(project, bench=("DeadCode",)), Quiet(), runner)
    assert runner.plan.settings.include == (include_pattern(DEAD, "DeadCodeBenchmark.measureWrong"),)
    reasons = {f.benchmark: i.reason for f, i in measured.impacts.items() if i.verdict == "not_measured"}
    assert reasons == {"ScrambleBenchmark.scrambleAll": "not selected by --bench"}
    with pytest.raises(UserError, match="--bench"):
        measure_findings(lint_paths([project]), request(project, bench=("(",)), Quiet(), runner)


def test_the_include_pattern_selects_the_benchmark_and_nothing_else():
    pattern = re.compile(include_pattern("a.b.Parse.run", "Parse.run"))
    assert pattern.search("a.b.Parse.run") and pattern.search("a.b.Outer.Parse.run")
    assert not any(pattern.search(name) for name in ("a.b.Parse.runAll", "a.b.MyParse.run", "x.a.b.Parse.run"))
    assert re.compile(include_pattern("Parse.run", "Parse.run")).search("Parse.run")


class Quiet:
    def message(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


def test_findings_whose_severity_lint_settings_changed_are_still_fixed_and_measured(project):
    from dataclasses import replace

    result = lint_paths([project])
    result = replace(result, findings=tuple(replace(f, severity="error") for f in result.findings))
    measured = measure_findings(result, request(project), Quiet(), FakeRunner())
    assert {i.verdict for i in measured.impacts.values()} == {"confirmed", "no_effect"}
    assert set(measured.impacts) == set(result.findings)
