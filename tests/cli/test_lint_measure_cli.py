"""``rigorbench lint --measure`` in-process: its words in every format, bad usage, Ctrl-C (the A/B
runner faked; a real run is tests/e2e/test_measure_e2e.py)."""

from __future__ import annotations

import io
import json
import shutil
import tempfile
from pathlib import Path

import pytest

from rigorbench.analysis.compare import Comparison, ComparisonResult, SideSummary
from rigorbench.cli import main
from rigorbench.experiment import measure
from rigorbench.model import BenchmarkCase, Metric
from rigorbench.stats.bootstrap import ConfidenceInterval
from rigorbench.stats.decision import Verdict
from tests.cli.sarif_check import assert_valid_sarif

ROOT = Path(__file__).resolve().parents[2]
DEAD = "dev.rigorbench.measure.DeadCodeBenchmark.measureWrong"
LOOP = "dev.rigorbench.measure.ScrambleBenchmark.scrambleAll"


def lint(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["lint", *args], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def scratch_root(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


@pytest.fixture
def project(tmp_path) -> Path:
    return Path(shutil.copytree(ROOT / "examples" / "jmh-measure", tmp_path / "jmh-measure"))


def comparison(name: str, verdict: Verdict, estimate: float, low: float, high: float) -> Comparison:
    side = SideSummary(10, 1.0, 1.0, ConfidenceInterval(1.0, 0.9, 1.1, 0.99), 0.01, 5, 5)
    return Comparison(BenchmarkCase("jmh", name), Metric("time", "ns/op", False, primary=True), side, side,
                      ConfidenceInterval(estimate, low, high, 0.99), 0.01, 0.9, "large", verdict)


@pytest.fixture
def fake_run(monkeypatch):
    """The A/B answers as a real one did on examples/jmh-measure (run 3 of the store given)."""
    def run(plan, store, reporter, settings, build_cache):
        reporter.message("run 3: 5 trials x 2 versions x 2 benchmarks")
        return 3, ComparisonResult("original", "fixed", settings, (
            comparison(DEAD, Verdict.SLOWER, 44.7, 8.26, 270.0), comparison(LOOP, Verdict.FASTER, 0.9, 0.85, 0.95)))

    monkeypatch.setattr(measure, "run_pair", run)


def test_text_says_each_findings_impact_in_words(project, fake_run, scratch_root):
    code, out, err = lint(str(project), "--measure")
    assert code == 1
    assert "measured: confirmed: the fixed variant is 45x slower per operation (fixed/original 44.7 [8.26, 270]), " \
           "as VOID predicts" in out
    assert "measured: inconclusive: the fixed variant is 1.11x faster per operation (fixed/original 0.9 [0.85, 0.95]), " \
           "the opposite of what LOOP predicts (slower)" in out
    assert "measured 2 of 2 findings: 1 confirmed, 1 inconclusive (original vs fixed, 5 trials, threshold 1%, " \
           "99% confidence)" in out
    assert "measuring 2 fixable findings in 2 benchmarks" in err and "run 3:" in err
    assert list(scratch_root.iterdir()) == []


def test_json_gives_every_finding_an_impact_and_names_the_kept_run(project, fake_run, tmp_path):
    code, out, _ = lint(str(project), "--measure", "--format", "json", "--store", str(tmp_path / "m.db"), "--trials", "4")
    document = json.loads(out)
    impacts = {f["benchmark"]: f["impact"] for f in document["findings"]}
    dead = impacts["DeadCodeBenchmark.measureWrong"]
    assert dead["verdict"] == "confirmed" and dead["ratio"] == {"estimate": 44.7, "ci_low": 8.26, "ci_high": 270.0}
    assert dead["benchmark"] == DEAD and dead["unit"] == "ns/op" and dead["predicted"] == "slower" and dead["shared"] == 1
    assert impacts["ScrambleBenchmark.scrambleAll"]["cases"][0]["change"] == "faster"
    assert document["measurement"] == {"trials": 4, "threshold": 0.01, "confidence": 0.99, "run": 3, "store": str(tmp_path / "m.db")}


def test_sarif_says_the_impact_and_stays_valid(project, fake_run, tmp_path):
    code, out, _ = lint(str(project), "--measure", "--format", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    assert any("Measured: confirmed: the fixed variant is 45x slower" in r["message"]["text"] for r in results)
    assert {r["properties"]["impact"]["verdict"] for r in results} == {"confirmed", "inconclusive"}
    assert_valid_sarif(out, tmp_path)


def test_without_measure_nothing_changes_in_the_json(project):
    document = json.loads(lint(str(project), "--format", "json")[1])
    assert "measurement" not in document and all("impact" not in f for f in document["findings"])


def test_ctrl_c_leaves_no_copy_behind(project, monkeypatch, scratch_root):
    def interrupted(*args):
        assert len(list(scratch_root.iterdir())) == 1    # the copies exist while it runs
        raise KeyboardInterrupt

    monkeypatch.setattr(measure, "run_pair", interrupted)
    code, _, err = lint(str(project), "--measure")
    assert code == 130 and err.splitlines()[-1] == "rigorbench: interrupted"
    assert list(scratch_root.iterdir()) == []


def test_no_fixable_finding_is_said_and_nothing_is_built(tmp_path, monkeypatch):
    monkeypatch.setattr(measure, "run_pair", lambda *args: pytest.fail("nothing to run"))
    source = tmp_path / "p" / "Fixture.java"
    source.parent.mkdir()
    source.write_text("import org.openjdk.jmh.annotations.*;\n@State(Scope.Thread)\npublic class Fixture {\n"
                      "    int[] data;\n    @Setup(Level.Invocation) public void fill() { data = new int[4]; }\n"
                      "    @Benchmark public int first() { return data[0]; }\n}\n")
    code, out, err = lint(str(source.parent), "--measure", "--format", "json")
    assert "no fixable finding; nothing to measure" in err
    impact = json.loads(out)["findings"][0]["impact"]
    assert impact["verdict"] == "not_measured" and impact["reason"] == "not fixable by --fix"
    code, out, _ = lint(str(source.parent), "--measure")
    assert "    measured: not measured: not fixable by --fix\n" in out
    assert "measured 0 of 1 finding: none could be (see each one's reason)" in out


@pytest.mark.parametrize(("args", "message"), [
    (["--measure", "--fix"], "--measure does not go with --fix"),
    (["--measure", "--diff"], "--measure does not go with --diff"),
    (["--forks", "2"], "--forks goes with --measure"),
    (["--measure", "--run", "1", "--store", "x.db"], "--measure judges findings by the run it makes"),
    (["--measure", "{project}/pom.xml"], "takes one PATH"),
    (["--measure", "{project}/src"], "neither a Maven project"),
    (["--measure", "--bench", "("], "--bench: '(' is not a regular expression"),
])
def test_bad_usage_is_one_line_and_exit_2(project, args, message):
    argv = [a.format(project=project) for a in args]
    code, out, err = lint(*(argv if any("{project}" in a for a in args) else [str(project), *argv]))
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and message in err, err


@pytest.mark.parametrize("page", ["README.md", "docs/lint.md"])
def test_the_documented_run_is_what_lint_finds_today_plus_the_measured_lines(page, monkeypatch):
    """The real run the docs show cannot be replayed in the fast tier; what lint found in it can."""
    text = (ROOT / page).read_text(encoding="utf-8")
    block = text.split("$ rigorbench lint examples/jmh-measure --measure\n", 1)[1].split("```", 1)[0]
    measured = [line for line in block.splitlines() if line.startswith(("    measured: ", "measured "))]
    assert len(measured) == 3 and measured[0].startswith("    measured: confirmed: the fixed variant is")
    monkeypatch.chdir(ROOT)
    code, out, _ = lint("examples/jmh-measure")
    assert code == 1 and out.splitlines() == [line for line in block.splitlines() if line not in measured]


def test_findings_of_one_benchmark_share_its_one_measurement_and_say_so(project, fake_run):
    source = project / "src/main/java/dev/rigorbench/measure/DeadCodeBenchmark.java"
    source.write_text(source.read_text().replace("        log(x);\n", "        log(x);\n        Math.sqrt(x);\n"))
    code, out, _ = lint(str(project), "--measure")
    shared = [line for line in out.splitlines() if "one measurement for the 2 findings of this benchmark" in line]
    assert len(shared) == 2 and all(line.startswith("    measured: confirmed:") for line in shared)
    document = json.loads(lint(str(project), "--measure", "--format", "json")[1])
    assert sorted(f["impact"]["shared"] for f in document["findings"]) == [1, 2, 2]
