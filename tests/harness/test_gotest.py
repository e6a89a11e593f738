"""The Go harness with the real toolchain: building test binaries, listing, one trial's levels,
failures, and the arguments a trial passes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rigorbench.errors import UserError
from rigorbench.harness import detect_harness, get_harness
from rigorbench.harness.base import DONE, BuildSpec, HarnessError, RunSettings
from rigorbench.harness.gotest import bench_pattern, first_level, trial_arguments

ROOT = Path(__file__).resolve().parents[2]

assert shutil.which("go"), "the Go harness tests need the go command on PATH"

FAILING = """package broken

import "testing"

var sink int

func BenchmarkFine(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += i
	}
}

func BenchmarkBroken(b *testing.B) {
	b.Fatal("the fixture is missing")
}
"""


def settings(**changes) -> RunSettings:
    base = dict(forks=2, warmup_iterations=1, iterations=2, iteration_time="5ms", profilers=())
    return RunSettings(**{**base, **changes})


def test_trial_arguments_map_the_experiment_onto_go_test_flags():
    assert trial_arguments(settings(include=("Join", "^BenchmarkItoa$"), threads=4)) == [
        "-test.run=^$", "-test.bench=(?:Join)|(?:^BenchmarkItoa$)", "-test.benchmem", "-test.count=3",
        "-test.benchtime=5ms", "-test.cpu=4"]
    assert "-test.bench=." in trial_arguments(settings())
    assert "-test.benchtime=100x" in trial_arguments(settings(iteration_time="100x"))
    with pytest.raises(UserError, match="bad iteration time '1 sec' for Go"):
        trial_arguments(settings(iteration_time="1 sec"))


@pytest.mark.parametrize("pattern, top", [
    ("Join/concat", "Join"), ("Adler32|Join/concat", "Adler32|Join"), ("(a/b)/c", "(a/b)"), ("[/]x/y", "[/]x"),
    (r"a\/b/c", r"a\/b"), ("Itoa", "Itoa"),
])
def test_the_first_level_of_a_pattern_is_split_as_go_splits_it(pattern, top):
    assert first_level(pattern) == top


def test_several_patterns_are_alternatives_and_one_goes_as_written():
    assert bench_pattern(("Adler32|Join/concat",)) == "Adler32|Join/concat"
    assert bench_pattern(("^BenchmarkA$", "^BenchmarkB$")) == "(?:^BenchmarkA$)|(?:^BenchmarkB$)"
    with pytest.raises(UserError, match="cannot be joined"):
        bench_pattern(("A/x", "B"))


def test_the_harness_is_detected_from_the_project_or_the_versions_folder(tmp_path):
    (tmp_path / "v1").mkdir()
    assert detect_harness(tmp_path, "v1") == "jmh"
    (tmp_path / "v1" / "go.mod").write_text("module x\n")
    assert detect_harness(tmp_path, "v1") == "go" and detect_harness(tmp_path / "v1") == "go"
    (tmp_path / "v1" / "pom.xml").write_text("<project/>")
    assert detect_harness(tmp_path, "v1") == "jmh"
    assert get_harness("go").name == "go"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    project = tmp_path_factory.mktemp("go") / "v1"
    shutil.copytree(ROOT / "examples" / "go-demo" / "v1", project, ignore=shutil.ignore_patterns(".rigorbench-go"))
    harness = get_harness("go")
    return harness, harness.build(project, BuildSpec(), log=lambda line: None)


@pytest.mark.e2e   # the go toolchain
def test_build_lists_and_runs_one_trial_with_forks_as_processes(built, tmp_path):
    harness, build = built
    assert build.tool_versions["go"].startswith("go version go1.")
    names = [b.name for b in harness.list_benchmarks(build, settings())]
    assert names == ["BenchmarkJoin", "BenchmarkAdler32", "BenchmarkItoa"]
    assert [b.name for b in harness.list_benchmarks(build, settings(include=("Adler",)))] == ["BenchmarkAdler32"]
    seen = []
    outcome = harness.run_trial(build, settings(include=("^BenchmarkItoa$",)), tmp_path, seen.append)
    assert outcome.status == DONE and not outcome.failures
    [time] = [s for s in outcome.series if s.metric.primary]
    table = time.samples
    assert time.case.name == "BenchmarkItoa" and sorted(set(table.fork.tolist())) == [0, 1]
    assert table.warmup.tolist().count(True) == 2 and (~table.warmup).sum() == 4
    assert {e.fork for e in seen if e.benchmark} == {1, 2} and outcome.environment["goos"]
    assert outcome.environment["go_module"] == "example.com/godemo (go 1.21)" and outcome.environment["gomaxprocs"]
    assert (tmp_path / "console-1-0.log").is_file() and (tmp_path / "command.txt").is_file()


@pytest.mark.e2e   # the go toolchain
def test_a_failing_benchmark_is_listed_and_the_others_are_kept(tmp_path):
    project = tmp_path / "broken"
    project.mkdir()
    (project / "go.mod").write_text("module example.com/broken\n\ngo 1.21\n")
    (project / "broken_test.go").write_text(FAILING)
    harness = get_harness("go")
    build = harness.build(project, BuildSpec(), log=lambda line: None)
    outcome = harness.run_trial(build, settings(forks=1), tmp_path / "work", lambda event: None)
    assert outcome.status == DONE
    assert {s.case.name for s in outcome.series} == {"BenchmarkFine"}
    assert any("BenchmarkBroken" in f for f in outcome.failures)


@pytest.mark.e2e   # the go toolchain
def test_a_folder_without_a_module_or_benchmarks_is_a_clear_error(tmp_path):
    harness = get_harness("go")
    with pytest.raises(HarnessError, match="no go.mod here"):
        harness.build(tmp_path, BuildSpec(), log=lambda line: None)
    (tmp_path / "go.mod").write_text("module example.com/empty\n\ngo 1.21\n")
    (tmp_path / "x.go").write_text("package empty\n")
    with pytest.raises(HarnessError, match="no package of this module has a func Benchmark"):
        harness.build(tmp_path, BuildSpec(), log=lambda line: None)


def test_exact_includes_select_a_benchmark_with_all_its_sub_benchmarks_and_no_other():
    import re

    (pattern,) = get_harness("go").exact_includes(["BenchmarkAdler32"])
    assert first_level(pattern) == pattern                  # one level: sub-benchmarks (its cases) all run
    assert re.search(pattern, "BenchmarkAdler32") and not re.search(pattern, "BenchmarkAdler32Slow")


def test_exact_includes_keep_the_sub_benchmarks_the_user_selected():
    """``--bench 'Encode/^best$'`` with --until-decided: the trials of the benchmarks still open
    run only the ``best`` cases, as the first trials did (found on klauspost/compress)."""
    import re

    from rigorbench.experiment.trial import TrialSpec
    from rigorbench.harness.base import RunSettings

    harness = get_harness("go")
    (pattern,) = harness.exact_includes(["BenchmarkEncode", "BenchmarkDecode"], ["Encode/^best$"])
    top = first_level(pattern)
    assert pattern[len(top) + 1:] == "^best$"
    assert re.search(top, "BenchmarkDecode") and not re.search(top, "BenchmarkDecodeAll")
    assert harness.exact_includes(["BenchmarkEncode"], ["Encode"]) == ("^BenchmarkEncode$",)
    spec = TrialSpec(RunSettings(include=("Encode/^best$",)).as_dict(), open=("BenchmarkEncode",))
    (settings,) = spec.invocations(harness)
    assert settings.include == ("(?:^BenchmarkEncode$)/^best$",)


@pytest.mark.e2e   # the go toolchain
def test_a_package_folder_of_a_module_builds_that_package_alone(tmp_path):
    """``ab golang.org/x/net/dns/dnsmessage``'s way: PATH inside a module selects the packages
    under it, and the build is identified by the whole module's sources."""
    from rigorbench.harness.cache import BuildCache

    (tmp_path / "go.mod").write_text("module example.com/two\n\ngo 1.21\n")
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}_test.go").write_text(
            f"package {name}\n\nimport \"testing\"\n\nfunc Benchmark{name.upper()}(b *testing.B) {{\n"
            "\tfor i := 0; i < b.N; i++ {\n\t}\n}\n")
    assert detect_harness(tmp_path / "b") == "go"
    harness = get_harness("go")
    build = harness.build(tmp_path / "b", BuildSpec(), log=lambda line: None)
    assert [p["package"] for p in json.loads((Path(build.artifact) / "manifest.json").read_text())] == ["example.com/two/b"]
    names = [b.name for b in harness.list_benchmarks(build, settings())]
    assert names == ["BenchmarkB"]
    cache = BuildCache(tmp_path / "cache", "c0ffee")
    from rigorbench.harness.gotest import build_identity
    before = build_identity(tmp_path / "b", cache)
    (tmp_path / "a" / "a_test.go").write_text("package a\n")   # another package of the module changed
    assert build_identity(tmp_path / "b", cache)["sources"] != before["sources"]
