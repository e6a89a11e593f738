"""JMH console-log reader on small hand-written logs (edge cases real runs rarely show)."""

from __future__ import annotations

import pytest

from rigorbench.errors import InputError
from rigorbench.formats import read_result_file
from rigorbench.formats.jmh_text import APPROXIMATE, iteration_score, parse_params, parse_score

HEADER = """\
# JMH version: {version}
# VM version: JDK 17.0.9, OpenJDK 64-Bit Server VM, 17.0.9+9
# VM invoker: /usr/lib/jvm/java-17/bin/java
# VM options: -Xmx1g
# Blackhole mode: compiler (auto-detected, use -Djmh.blackhole.autoDetect=false to disable)
# Warmup: 2 iterations, 1 s each
# Measurement: 3 iterations, 1 s each
# Timeout: 10 min per iteration
# Threads: 1 thread, will synchronize iterations
# Benchmark mode: {mode}
# Benchmark: {name}
"""


def header(name="dev.rigorbench.demo.Foo.bar", mode="Average time, time/op", params=None, version="1.37"):
    text = HEADER.format(name=name, mode=mode, version=version)
    if params:
        text += f"# Parameters: ({params})\n"
    return text + "\n"


def fork(i, n, warmup, measured, unit="ns/op", secondary=None):
    """A fork block; ``secondary`` maps labels to per-iteration (warmup + measured) values."""
    lines = ["# Run progress: 0.00% complete, ETA 00:00:10", f"# Fork: {i} of {n}"]
    values = [(True, v) for v in warmup] + [(False, v) for v in measured]
    for k, (is_warmup, value) in enumerate(values):
        number = k + 1 if is_warmup else k - len(warmup) + 1
        prefix = "# Warmup Iteration" if is_warmup else "Iteration"
        lines.append(f"{prefix} {number:>3}: {value} {unit}")
        for label, (sunit, svalues) in (secondary or {}).items():
            lines.append(f"                 {label}:  {svalues[k]} {sunit}")
    return "\n".join(lines) + "\n\n"


RESULT = """
Result "{name}":
  2.000 ±(99.9%) 0.100 ns/op [Average]
  (min, avg, max) = (1.000, 2.000, 3.000), stdev = 0.500
  CI (99.9%): [1.900, 2.100] (assumes normal distribution)


"""

SUMMARY = """\
# Run complete. Total time: 00:00:42

REMEMBER: The numbers below are just data. To gain reusable insights, you need to follow up on
why the numbers are the way they are.

Benchmark                       Mode  Cnt  Score   Error  Units
Foo.bar                         avgt    6  2.000 ± 0.100  ns/op
"""


def only(result, metric="time"):
    found = [s for s in result.series if s.metric.name == metric]
    assert len(found) == 1, [s.metric.name for s in result.series]
    return found[0]


def test_forks_warmup_and_measurement(write):
    name = "dev.rigorbench.demo.Foo.bar"
    text = header() + fork(1, 2, ["5.000", "4.000"], ["1.000", "2.000", "3.000"])
    text += fork(2, 2, ["6.000", "5.500"], ["1.500", "2.500", "3.500"]) + RESULT.format(name=name) + SUMMARY
    result = read_result_file(write(text))
    assert result.format == "jmh-text"
    assert result.warnings == ()
    series = only(result)
    assert series.case.name == name and series.case.params == ()
    assert series.metric.unit == "ns/op" and series.metric.primary
    s = series.samples
    assert s.value.tolist() == [5, 4, 1, 2, 3, 6, 5.5, 1.5, 2.5, 3.5]
    assert s.warmup.tolist() == [True, True, False, False, False] * 2
    assert s.fork.tolist() == [0] * 5 + [1] * 5
    assert s.iteration.tolist() == [0, 1, 0, 1, 2] * 2
    assert s.measurement().value.tolist() == [1, 2, 3, 1.5, 2.5, 3.5]
    env = result.environment
    assert env["jmh_version"] == "1.37" and env["mode"] == "avgt" and env["threads"] == "1"
    assert env["forks"] == "2" and env["jvm_args"] == "-Xmx1g" and env["blackhole_mode"] == "compiler"
    assert env["jdk_version"] == "17.0.9" and env["vm_version"] == "17.0.9+9"
    assert env["warmup"] == "2 iterations, 1 s each" and env["measurement"] == "3 iterations, 1 s each"


def test_parameters_line(write):
    text = header(params="size = 100, mode = a,b") + fork(1, 1, [], ["1.000"]) + SUMMARY
    case = read_result_file(write(text)).series[0].case
    assert case.params == (("mode", "a,b"), ("size", "100"))


def test_throughput_mode(write):
    text = header(mode="Throughput, ops/time") + fork(1, 1, [], ["1234.5"], unit="ops/s") + SUMMARY
    metric = read_result_file(write(text)).series[0].metric
    assert (metric.name, metric.unit, metric.higher_is_better) == ("throughput", "ops/s", True)


@pytest.mark.parametrize("dot", ["\u00b7", ""], ids=["jmh-1.36-dot", "jmh-1.37-plain"])
def test_secondary_metric_lines_follow_their_iteration(write, dot):
    secondary = {
        f"{dot}gc.alloc.rate": ("MB/sec", ["100.000", "110.000", "120.000", "130.000"]),
        f"{dot}gc.alloc.rate.norm": ("B/op", ["24.000", "24.000", "24.000", "24.000"]),
        f"{dot}gc.count": ("counts", ["\u2248 0", "1.000", "\u2248 0", "2.000"]),
    }
    text = header(version="1.36" if dot else "1.37") + fork(1, 1, ["9.000"], ["1.000", "2.000", "3.000"], secondary=secondary)
    result = read_result_file(write(text + SUMMARY))
    assert [s.metric.name for s in result.series] == ["time", "gc.alloc.rate", "alloc", "gc.count"]
    alloc = only(result, "alloc")
    assert (alloc.metric.unit, alloc.metric.primary, alloc.metric.higher_is_better) == ("B/op", False, False)
    assert alloc.samples.warmup.tolist() == [True, False, False, False]
    assert alloc.samples.iteration.tolist() == [0, 0, 1, 2]
    assert only(result, "gc.count").samples.value.tolist() == [0.0, 1.0, 0.0, 2.0]


def test_decimal_comma(write):
    text = header(mode="Throughput, ops/time") + fork(1, 1, ["262750061,756"], ["334864679,695", "1,5"], unit="ops/s")
    s = read_result_file(write(text + SUMMARY)).series[0].samples
    assert s.value.tolist() == [262750061.756, 334864679.695, 1.5]


def test_nan_is_skipped_and_counted(write):
    text = header() + fork(1, 1, ["NaN"], ["1.000", "NaN", "3.000"]) + SUMMARY
    result = read_result_file(write(text))
    assert result.series[0].samples.value.tolist() == [1.0, 3.0]
    assert result.warnings == ("2 non-finite values skipped in dev.rigorbench.demo.Foo.bar time",)


def test_approximate_values_are_skipped_with_a_warning(write):
    text = header() + fork(1, 1, [], ["\u2248 10\u207b\u2074", "0.002"]) + SUMMARY
    result = read_result_file(write(text))
    assert result.series[0].samples.value.tolist() == [0.002]
    assert "1 approximate value (≈ 10⁻ⁿ) skipped in dev.rigorbench.demo.Foo.bar time" in result.warnings[0]


def test_log_cut_mid_fork_keeps_what_finished(write):
    text = header() + fork(1, 2, ["5.000"], ["1.000", "2.000", "3.000"]) + fork(2, 2, ["5.000"], ["4.000", "5.000", "6.000"])
    cut = text[: text.index("Iteration   2: 5.000 ns/op") + len("Iteration   2: 5.000 ns/o")]  # no newline
    result = read_result_file(write(cut))
    s = result.series[0].samples
    assert s.measurement().value.tolist() == [1, 2, 3, 4]
    assert s.fork.tolist() == [0, 0, 0, 0, 1, 1]
    assert len(result.warnings) == 1 and "without '# Run complete' (run killed?)" in result.warnings[0]


def test_failure_is_a_warning_and_the_next_benchmark_is_read(write):
    failing = header(name="dev.rigorbench.demo.Foo.broken") + """\
# Run progress: 0.00% complete, ETA 00:00:10
# Fork: 1 of 2
# Warmup Iteration   1: 5.000 ns/op
Iteration   1: 1.000 ns/op
Iteration   2: <failure>

java.lang.IllegalStateException: broken on purpose
\tat dev.rigorbench.demo.Foo.broken(Foo.java:42)
\tat dev.rigorbench.demo.jmh_generated.Foo_broken_jmhTest.broken_avgt_jmhStub(Foo_broken_jmhTest.java:190)
    Caused by: x: 1.000 ns/op


"""
    text = failing + header() + fork(1, 1, [], ["7.000"]) + SUMMARY
    result = read_result_file(write(text))
    assert result.warnings == (
        "benchmark dev.rigorbench.demo.Foo.broken failed: java.lang.IllegalStateException: broken on purpose",
    )
    broken, ok = result.series
    assert broken.case.name.endswith("broken") and broken.samples.value.tolist() == [5.0, 1.0]
    assert ok.samples.value.tolist() == [7.0]


def test_sample_time_iteration_lines_give_the_mean_and_skip_percentiles(write):
    text = header(mode="Sampling time") + """\
# Fork: 1 of 1
# Warmup Iteration   1: 26.419 ±(99.9%) 0.641 ns/op
Iteration   1: 23.073 ±(99.9%) 0.134 ns/op
                 bar·p0.00:   18.000 ns/op
                 bar·p0.50:   23.000 ns/op
                 bar·p0.9999: 1024.000 ns/op
                 bar·p1.00:   2000.000 ns/op

Iteration   2: 22,500 ±(99,9%) 0,100 ns/op
                 p0.00:   18.000 ns/op
                 p1.00:   1000.000 ns/op

""" + SUMMARY
    result = read_result_file(write(text))
    assert [s.metric.name for s in result.series] == ["sample_time"]
    s = result.series[0].samples
    assert s.value.tolist() == [26.419, 23.073, 22.5] and s.warmup.tolist() == [True, False, False]


def test_old_sample_time_lines(write):
    text = header(mode="Sampling time", version="1.9") + """\
# Fork: 1 of 1
# Warmup Iteration   1: n = 10, mean = 100 ms/op, p{0.00, 0.50, 0.90, 0.95, 0.99, 0.999, 0.9999, 1.00} = 99, 100, 100, 100, 100, 100, 100, 100 ms/op
Iteration   1: n = 11, mean = 101 ms/op, p{0.00, 0.50, 0.90, 0.95, 0.99, 0.999, 0.9999, 1.00} = 100, 100, 100, 100, 100, 100, 100, 100 ms/op
"""
    s = read_result_file(write(text + SUMMARY)).series[0]
    assert s.samples.value.tolist() == [100.0, 101.0] and s.metric.unit == "ms/op"


def test_several_benchmarks_and_modes_in_one_log(write):
    text = header(name="a.B.x", mode="Throughput, ops/time") + fork(1, 1, [], ["10.0"], unit="ops/ms")
    text += header(name="a.B.y") + fork(1, 1, [], ["2.0"]) + SUMMARY
    result = read_result_file(write(text))
    assert [(s.case.name, s.metric.name) for s in result.series] == [("a.B.x", "throughput"), ("a.B.y", "time")]
    assert result.environment["mode"] == "thrpt | avgt"


def test_malformed_iteration_line_names_its_line(write):
    text = header() + "# Fork: 1 of 1\nIteration   1: 1.000 ns/op\nIteration   2: fast ns/op\n" + SUMMARY
    path = write(text)
    with pytest.raises(InputError) as info:
        read_result_file(path)
    line = text.split("\n").index("Iteration   2: fast ns/op") + 1
    assert str(info.value) == f"{path}:{line}: cannot read the score of iteration 2: 'fast ns/op'"


def test_iteration_before_any_benchmark_header(write):
    with pytest.raises(InputError, match="before any '# Benchmark:' line") as info:
        read_result_file(write("Iteration   1: 1.000 ns/op\n"))
    assert info.value.line == 1


def test_crlf_line_endings(write):
    text = (header() + fork(1, 1, ["2.0"], ["1.000"]) + SUMMARY).replace("\n", "\r\n")
    s = read_result_file(write(text)).series[0].samples
    assert s.value.tolist() == [2.0, 1.0]


def test_log_with_only_headers_has_no_results(write):
    with pytest.raises(InputError, match="no benchmark results found"):
        read_result_file(write(header() + "# Run progress: 0.00% complete, ETA 00:00:10\n# Fork: 1 of 2\n"))


def test_maven_noise_before_the_log_is_ignored(write):
    noise = "[INFO] Scanning for projects...\n[INFO] BUILD SUCCESS\nBenchmarking: starting\n"
    text = noise + header() + fork(1, 1, [], ["1.000"]) + SUMMARY
    assert read_result_file(write(text)).series[0].samples.value.tolist() == [1.0]


def test_a_long_log_parses(write):
    """30,000 iterations: the reader is linear (timing lives in benchmarks/, not here)."""
    iterations = "\n".join(f"Iteration {i:>5}: {i % 97}.125 ns/op" for i in range(1, 30001))
    text = header() + "# Fork: 1 of 1\n" + iterations + "\n" + SUMMARY
    s = read_result_file(write(text)).series[0].samples
    assert len(s) == 30000 and s.iteration[-1] == 29999


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1.500", 1.5),
        ("1,500", 1.5),
        ("-2.0", -2.0),
        ("\u2248 0", 0.0),
        ("\u2248 10\u207b\u2074", APPROXIMATE),
        ("fast", None),
    ],
)
def test_parse_score(text, expected):
    assert parse_score(text) == expected


def test_parse_score_nan():
    assert parse_score("NaN") != parse_score("NaN")


@pytest.mark.parametrize(
    "payload, expected",
    [
        ("12.345 ns/op", (12.345, "ns/op")),
        ("2.535 ±(99.9%) 0.053 ms/op", (2.535, "ms/op")),
        ("2.535 ±(99.9%) \u2248 10\u207b\u2074 ms/op", (2.535, "ms/op")),
        ("n = 11, mean = 100 ms/op, p{0.00, 1.00} = 99, 100 ms/op", (100.0, "ms/op")),
        ("12.345", None),
        ("", None),
    ],
)
def test_iteration_score(payload, expected):
    assert iteration_score(payload) == expected


def test_parse_params():
    assert parse_params("(a = 1, b = x y, c = 2,3)") == {"a": "1", "b": "x y", "c": "2,3"}


def test_a_benchmark_failing_in_every_fork_is_one_warning(write):
    failing = "# Fork: {i} of 2\n# Warmup Iteration   1: <failure>\n\njava.lang.IllegalArgumentException: empty\n\tat x.Y.z(Y.java:1)\n\n"
    text = header(params="size = 0") + failing.format(i=1) + failing.format(i=2) + header() + fork(1, 1, [], ["1.0"])
    result = read_result_file(write(text + SUMMARY))
    assert result.warnings == (
        "benchmark dev.rigorbench.demo.Foo.bar{size=0} failed: java.lang.IllegalArgumentException: empty (2 times)",
    )


def test_forked_vm_failure_is_a_warning(write):
    vm_failed = "# Fork: 1 of 1\nUnrecognized option: -Xbogus\n<forked VM failed with exit code 1>\n<stdout last='20 lines'>\n</stdout>\n\n"
    text = header(name="a.B.broken") + vm_failed + header() + fork(1, 1, [], ["1.0"]) + SUMMARY
    result = read_result_file(write(text))
    assert result.warnings == ("benchmark a.B.broken: forked VM failed with exit code 1",)
    with pytest.raises(InputError, match=r"no benchmark results found \(benchmark a.B.broken: forked VM failed"):
        read_result_file(write(header(name="a.B.broken") + vm_failed + SUMMARY))


def test_interrupted_iteration_keeps_its_score(write):
    text = header() + "# Fork: 1 of 1\nIteration   1: (*interrupt*) 12.500 ns/op\n" + SUMMARY
    assert read_result_file(write(text)).series[0].samples.value.tolist() == [12.5]


def test_failure_with_a_reason_keeps_the_iterations_before_it(write):
    # What JMH prints when the forked VM is killed in the middle of an iteration.
    text = header() + """\
# Run progress: 0.00% complete, ETA 00:00:10
# Fork: 1 of 2
# Warmup Iteration   1: 5.000 ns/op
Iteration   1: 1.000 ns/op
Iteration   2: <failure: VM prematurely exited before JMH had finished with it, explicit System.exit was called?>

"""
    result = read_result_file(write(text))
    assert result.series[0].samples.value.tolist() == [5.0, 1.0]
    assert any("failed: VM prematurely exited" in w for w in result.warnings)
