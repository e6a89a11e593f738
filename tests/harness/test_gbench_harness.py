"""The Google Benchmark harness with real CMake, g++ and Debian's libbenchmark-dev: building,
listing, one trial's levels and failures, the arguments a trial passes. ``ab`` on the demo's
two versions is in tests/e2e/test_build_cache_e2e.py."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.errors import UserError
from rigorbench.harness import detect_harness, get_harness
from rigorbench.harness.base import DONE, BuildSpec, HarnessError, RunSettings
from rigorbench.harness.gbench import bench_filter, min_time, trial_arguments
from rigorbench.harness.gbench_build import SECONDS, SUFFIXED, library_version, min_time_form, relocatable, suffixed_min_time

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "gbench-demo"

needs_gbench = pytest.mark.skipif(
    not (Path("/usr/include/benchmark/benchmark.h").is_file() and shutil.which("cmake") and shutil.which("g++")),
    reason="Google Benchmark, CMake and g++ are not installed (Debian: libbenchmark-dev cmake g++, "
           "which 'make test' installs where it can)",
)


def settings(**changes) -> RunSettings:
    base = dict(forks=2, warmup_iterations=1, iterations=2, iteration_time="10ms", profilers=())
    return RunSettings(**{**base, **changes})


def test_trial_arguments_map_the_experiment_onto_benchmark_flags():
    assert trial_arguments(settings(include=("BM_Join", "^BM_Sum"))) == [
        "--benchmark_filter=(BM_Join)|(^BM_Sum)", "--benchmark_repetitions=3", "--benchmark_min_time=0.01"]
    assert bench_filter(()) == "."
    with pytest.raises(UserError, match="a fixed iteration count needs Google Benchmark 1.8 or later"):
        trial_arguments(settings(iteration_time="100x"))
    with pytest.raises(UserError, match="excludes in Google Benchmark"):
        bench_filter(("-BM_Sum",))


@pytest.mark.parametrize("iteration_time, suffixed, expected", [
    ("1s", False, "1"), ("100ms", False, "0.1"), ("250us", False, "0.00025"),        # 1.7: seconds, no suffix
    ("1s", True, "1s"), ("100ms", True, "0.1s"), ("100x", True, "100x"), ("7x", True, "7x"),   # 1.8: <float>s or <integer>x
    ("1m", True, "60s"),                  # any duration rigorbench reads (rigorbench.units), converted
])
def test_min_time_takes_the_form_of_the_library_version(iteration_time, suffixed, expected):
    assert min_time(iteration_time, suffixed) == expected


def test_a_fixed_count_is_refused_before_1_8_and_bad_values_always():
    with pytest.raises(UserError, match=r"'100x': a fixed iteration count needs Google Benchmark 1.8 or later .* give a time"):
        min_time("100x", False)
    for bad in ("1.5x", "x", "1 week", "fast", "-1s"):
        with pytest.raises(UserError, match="for Google Benchmark"):
            min_time(bad, True)
    assert trial_arguments(settings(iteration_time="20x"), suffixed=True)[-1] == "--benchmark_min_time=20x"


@pytest.mark.parametrize("version, suffixed", [("1.7.1", False), ("1.6.0", False), ("v1.8.0", True), ("1.8.3", True),
                                               ("1.9.1", True), ("2.0", True), ("1", False), ("", False)])
def test_versions_from_1_8_on_take_the_suffixed_forms(version, suffixed):
    assert suffixed_min_time(version) is suffixed


def test_the_library_version_is_read_from_the_package_or_the_fetched_sources(tmp_path):
    package, source = tmp_path / "pkg", tmp_path / "src"
    package.mkdir()
    source.mkdir()
    (package / "benchmarkConfigVersion.cmake").write_text('set(PACKAGE_VERSION "1.7.1")\n')
    (source / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.10)\nproject (benchmark VERSION 1.8.3 LANGUAGES CXX)\n")
    assert library_version({"benchmark_DIR": str(package)}) == "1.7.1"
    assert library_version({"benchmark_SOURCE_DIR": str(source)}) == "1.8.3"
    assert library_version({"benchmark_DIR": str(tmp_path / "gone")}) is None and library_version({}) is None


def test_an_executable_that_names_its_build_folder_is_not_relocatable(tmp_path):
    out = tmp_path / ".rigorbench-gbench"
    (tmp_path / "a").write_bytes(b"\x7fELF...RUNPATH " + str(out).encode() + b"/lib\0")
    (tmp_path / "b").write_bytes(b"\x7fELF... /usr/lib/x86_64-linux-gnu\0")
    assert not relocatable(tmp_path / "a", out) and relocatable(tmp_path / "b", out)
    assert not relocatable(tmp_path / "missing", out)


def test_the_harness_is_detected_from_the_cmake_project(tmp_path):
    assert detect_harness(DEMO, "v1") == "gbench"
    (tmp_path / "CMakeLists.txt").write_text("project(x)\nadd_executable(tool main.cpp)\n")
    assert detect_harness(tmp_path) == "jmh"       # CMake without Google Benchmark is not ours
    with pytest.raises(HarnessError, match="no add_executable"):
        get_harness("gbench").build(tmp_path, BuildSpec(), log=lambda line: None)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The demo's v1 built once for this module (CMake and g++: the slow part of these tests)."""
    project = tmp_path_factory.mktemp("gbench") / "v1"
    shutil.copytree(DEMO / "v1", project)
    harness = get_harness("gbench")
    return harness, harness.build(project, BuildSpec(), log=lambda line: None)


@pytest.mark.e2e
@needs_gbench
def test_build_lists_and_runs_one_trial_with_forks_as_processes(built, tmp_path):
    harness, build = built
    listed = harness.list_benchmarks(build, settings())       # families, as the results name them
    assert [(b.name, b.params) for b in listed] == [("BM_SumVector", (("size", ("1000", "10000")),)),
                                                    ("BM_JoinWords", ()), ("BM_Broken", ())]
    # A family's exact include selects all its instances and no other family (the adaptive
    # experiments and --warmup auto select benchmarks this way).
    only = settings(include=harness.exact_includes(["BM_SumVector"]))
    assert [(b.name, b.params) for b in harness.list_benchmarks(build, only)] == [("BM_SumVector", (("size", ("1000", "10000")),))]
    outcome = harness.run_trial(build, settings(include=("BM_JoinWords", "BM_Broken")), tmp_path / "work", lambda e: None)
    assert outcome.status == DONE and outcome.failures == ("BM_Broken: the input file is missing",)
    time = next(s for s in outcome.series if s.metric.primary)
    assert time.case.name == "BM_JoinWords" and sorted(set(time.samples.fork.tolist())) == [0, 1]
    assert int(time.samples.warmup.sum()) == 2 and int((~time.samples.warmup).sum()) == 4
    assert {s.metric.name for s in outcome.series} == {"time", "cpu_time", "words"}
    assert outcome.environment["library_build_type"] in ("debug", "release")
    # The library's version (Debian 12: 1.7.1) is read from CMake's package files, and asking the
    # executable gives the same --benchmark_min_time form.
    version = build.tool_versions["benchmark"]
    form = SUFFIXED if suffixed_min_time(version) else SECONDS
    assert re.fullmatch(r"\d+\.\d+\.\d+", version) and build.tool_versions["benchmark_min_time"] == form
    assert min_time_form(None, harness.executables(build)[0]) == form
    command = (tmp_path / "work" / "command.txt").read_text().split()
    assert f"--benchmark_min_time={'0.01s' if form == SUFFIXED else '0.01'}" in command


def test_progress_names_each_benchmark_once_not_its_aggregate_lines():
    from rigorbench.experiment.progress import PlainReporter
    from rigorbench.harness.gbench import _RUNNING
    from rigorbench.harness.repetitions import progress_of

    stream = io.StringIO()
    feed = progress_of(PlainReporter(stream).progress, _RUNNING, 0, 1)
    for line in ["BM_SumVector/size:1000        350 ns   349 ns   2000000",
                 "BM_SumVector/size:1000        351 ns   350 ns   2000000",
                 "BM_SumVector/size:1000_mean   350 ns   350 ns         2",
                 "BM_SumVector/size:1000_cv    0.20 %  0.20 %         2",
                 "BM_JoinWords_stddev          12.1 ns  12.0 ns         2",
                 "----------------------------------------------------"]:
        feed(line)
    assert stream.getvalue().split() == ["BM_SumVector/size:1000", "BM_JoinWords"]


def test_exact_includes_escape_the_family_name_and_match_only_its_instances():
    import re

    (pattern,) = get_harness("gbench").exact_includes(["BM_a.b(x)"])
    # POSIX extended syntax agrees with Python's on these constructs.
    assert re.search(pattern, "BM_a.b(x)") and re.search(pattern, "BM_a.b(x)/size:8/real_time")
    assert not re.search(pattern, "BM_aXb(x)") and not re.search(pattern, "BM_a.b(x)2")


@pytest.mark.e2e
@needs_gbench
def test_a_fixed_count_on_a_library_before_1_8_is_refused_before_any_run_is_stored(built, tmp_path):
    shutil.copytree(DEMO, tmp_path / "gbench-demo", ignore=shutil.ignore_patterns(".rigorbench-gbench"))
    library = built[1].tool_versions["benchmark"]
    db = tmp_path / "r.db"
    out, err = io.StringIO(), io.StringIO()
    argv = ["ab", str(tmp_path / "gbench-demo"), "--base", "v1", "--contender", "v2", "--trials", "2",
            "--iteration-time", "100x", "--store", str(db)]
    if suffixed_min_time(library):   # 1.8 or later (not Debian 12's 1.7.1): the count is taken
        assert main([*argv, "--list"], out, err) == 0, err.getvalue()
        return
    assert main(argv, out, err) == 2 and "Traceback" not in err.getvalue()
    assert "a fixed iteration count needs Google Benchmark 1.8 or later" in err.getvalue().splitlines()[-1]
    from rigorbench.store import ResultStore
    with ResultStore.open(str(db)) as store:
        assert store.list_runs() == []
