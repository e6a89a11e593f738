"""The JMH command lines the harness builds, and what it reads from benchmark jars."""

from __future__ import annotations

import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from rigorbench.errors import UserError
from rigorbench.harness import HARNESSES, get_harness
from rigorbench.harness.base import BuildSpec, HarnessError, RunSettings
from rigorbench.harness.jmh import (
    JmhHarness,
    checked_includes,
    jvm_args_options,
    parse_benchmark_list,
    trial_command,
)
from rigorbench.harness.jmh_jar import (
    BenchmarkJar,
    find_benchmarks_jar,
    jar_from_pattern,
    jmh_version,
    main_class,
    runnable_as_benchmarks,
)
from rigorbench.harness.tools import resolve_java

JAR = Path("/p/target/benchmarks.jar")
RESULT = Path("/w/result.json")


def test_default_command_has_every_setting_and_json_output():
    command = trial_command(("java", "-jar", str(JAR)), RunSettings(), RESULT)
    assert command == [
        "java", "-jar", str(JAR),
        "-f", "3", "-wi", "5", "-i", "10", "-w", "1s", "-r", "1s",
        "-prof", "gc", "-rf", "json", "-rff", str(RESULT),
    ]


def test_full_command_in_documented_order():
    settings = RunSettings(
        forks=2, warmup_iterations=1, iterations=4, warmup_time="200ms", iteration_time="300ms",
        mode="avgt", time_unit="us", include=("Stats", r"Csv.*sum$"), params=(("size", "10,100"), ("kind", "a b")),
        jvm_args=("-Xmx1g", "-Dname=a b"), profilers=("gc", "comp"), threads=2,
    )
    command = trial_command(("java", "-Djava.io.tmpdir=/t", "-jar", str(JAR)), settings, RESULT)
    assert command == [
        "java", "-Djava.io.tmpdir=/t", "-jar", str(JAR), "Stats", r"Csv.*sum$",
        "-f", "2", "-wi", "1", "-i", "4", "-w", "200ms", "-r", "300ms",
        "-bm", "avgt", "-tu", "us", "-t", "2",
        "-p", "size=10,100", "-p", "kind=a b",
        "-jvmArgs", "-Xmx1g", "-jvmArgs", "-Dname=a b",
        "-prof", "gc", "-prof", "comp",
        "-rf", "json", "-rff", str(RESULT),
    ]


def test_untrusted_names_stay_single_arguments():
    name = "$(rm -rf /); echo `x` | tee"
    command = trial_command(("java", "-jar", str(JAR)), RunSettings(include=(name,), params=(("p", name),)), RESULT)
    assert name in command and f"p={name}" in command


@pytest.mark.parametrize("field, value", [
    ("include", ("-foe",)), ("include", ("",)), ("profilers", ("-o",)), ("mode", "-rf"), ("warmup_time", "-1s"),
])
def test_values_that_jmh_would_read_as_options_are_refused(field, value):
    with pytest.raises(UserError, match="must not be empty or start with '-'"):
        trial_command(("java", "-jar", str(JAR)), RunSettings(**{field: value}), RESULT)


def test_bad_parameter_name_is_refused():
    with pytest.raises(UserError, match="parameter name"):
        trial_command(("java", "-jar", str(JAR)), RunSettings(params=(("a=b", "1"),)), RESULT)


@pytest.mark.parametrize("jvm_args, options", [
    ((), []),
    (("-Xmx1g",), ["-jvmArgs", "-Xmx1g"]),
    (("-Dx=a b",), ["-jvmArgs", '"-Dx=a b"']),  # a single value is split at spaces by JMH
    (("-Xmx1g", '-Dq="x"'), ["-jvmArgs", "-Xmx1g", "-jvmArgs", '-Dq="x"']),  # several: kept verbatim
])
def test_jvm_args_reach_the_forks_as_one_argument_each(jvm_args, options):
    assert jvm_args_options(jvm_args) == options


@pytest.mark.parametrize("jvm_args", [('-Dq="x"',), ("",), ("-Xmx1g", "")])
def test_jvm_args_jmh_cannot_pass_are_refused(jvm_args):
    with pytest.raises(UserError):
        jvm_args_options(jvm_args)


def test_includes_are_checked():
    assert checked_includes(("A", "B.c")) == ["A", "B.c"]


def test_benchmark_list_is_read_from_jmh_listing():
    lines = ["WARNING: something", "Benchmarks: ", "dev.x.A.one", "  dev.x.B.two$inner  ", "", "not a name!"]
    assert [b.name for b in parse_benchmark_list(lines)] == ["dev.x.A.one", "dev.x.B.two$inner"]
    assert parse_benchmark_list(["Benchmarks: "]) == []


def test_parameters_are_read_from_jmh_dash_lp_listing():
    # As JMH 1.37 prints ``-lp`` (seen on the example project).
    lines = [
        "Benchmarks: ", "dev.x.Csv.sum", "dev.x.Stats.standardize", '  param "size" = {100, 1000}',
        '  param "kind" = {a b, c}', "dev.x.Q.offer", '  param "qType" = {SpscArrayQueue}', '  param "empty" = {}',
    ]
    listed = parse_benchmark_list(lines)
    assert [(b.name, b.params) for b in listed] == [
        ("dev.x.Csv.sum", ()),
        ("dev.x.Stats.standardize", (("size", ("100", "1000")), ("kind", ("a b", "c")))),
        ("dev.x.Q.offer", (("qType", ("SpscArrayQueue",)), ("empty", ()))),
    ]


def test_registry_makes_harnesses_and_lists_names_of_unknown_ones():
    assert isinstance(get_harness("jmh"), JmhHarness)
    assert HARNESSES["jmh"] is JmhHarness and get_harness("jmh").name == "jmh"
    with pytest.raises(UserError, match="unknown harness 'cargo'; valid harnesses: gbench, go, jmh, pyperf"):
        get_harness("cargo")


# -- jars -------------------------------------------------------------------------------------


def make_jar(path: Path, main: str | None = None, entries: dict[str, str] | None = None, class_path: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    manifest = "Manifest-Version: 1.0\n"
    if main:
        manifest += f"Main-Class: {main}\n"
    if class_path:  # manifest lines wrap at 72 bytes with a leading space on continuation lines
        manifest += f"Class-Path: {class_path[:40]}\n {class_path[40:]}\n"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("META-INF/MANIFEST.MF", manifest + "\n")
        for name, text in (entries or {}).items():
            archive.writestr(name, text)
    return path


JMH_INSIDE = {"org/openjdk/jmh/Main.class": ""}
BENCHMARKS = {"META-INF/BenchmarkList": "", **JMH_INSIDE}


def test_benchmarks_jar_is_preferred_among_runnable_jars(tmp_path):
    make_jar(tmp_path / "target" / "other.jar", "org.openjdk.jmh.Main", JMH_INSIDE)
    jar = make_jar(tmp_path / "target" / "benchmarks.jar", "org.openjdk.jmh.Main", JMH_INSIDE)
    assert find_benchmarks_jar([tmp_path / "target"]).path == jar


def test_a_jar_is_recognised_by_what_it_holds_not_by_its_name(tmp_path):
    target = tmp_path / "target"
    make_jar(target / "lib.jar", "com.example.App")
    # The module jar before shading holds the benchmarks but not JMH: it cannot run alone.
    make_jar(target / "perf-1.0.jar", entries={"META-INF/BenchmarkList": ""})
    make_jar(target / "original-perf-1.0-shaded.jar", "org.openjdk.jmh.Main", JMH_INSIDE)
    jar = make_jar(target / "perf-1.0-shaded.jar", "org.openjdk.jmh.Main", JMH_INSIDE)
    assert main_class(jar) == "org.openjdk.jmh.Main"
    assert find_benchmarks_jar([target]) == BenchmarkJar(jar, None)
    # A shaded jar with another main class but JMH and the benchmark list inside: -cp JAR Main.
    other = tmp_path / "other"
    app = make_jar(other / "app-all.jar", "com.example.App", BENCHMARKS)
    assert find_benchmarks_jar([other]) == BenchmarkJar(app, "org.openjdk.jmh.Main")
    # The Gradle plugin's name wins over other runnable jars; a JMH main without JMH does not run.
    libs = tmp_path / "build" / "libs"
    make_jar(libs / "x-1.0-all.jar", "org.openjdk.jmh.Main", JMH_INSIDE)
    gradle = make_jar(libs / "x-1.0-jmh.jar", "org.openjdk.jmh.Main", JMH_INSIDE)
    assert find_benchmarks_jar([tmp_path / "nothing-here", libs]).path == gradle
    assert runnable_as_benchmarks(make_jar(tmp_path / "empty-jmh.jar", "org.openjdk.jmh.Main")) is None


def test_missing_or_ambiguous_jar_is_a_harness_error(tmp_path):
    make_jar(tmp_path / "target" / "lib.jar", "com.example.App")
    with pytest.raises(HarnessError, match=r"no JMH benchmark jar \(found lib.jar\).*--jar"):
        find_benchmarks_jar([tmp_path / "target"])
    make_jar(tmp_path / "target" / "a.jar", "org.openjdk.jmh.Main", JMH_INSIDE)
    make_jar(tmp_path / "target" / "b.jar", "org.openjdk.jmh.Main", JMH_INSIDE)
    with pytest.raises(HarnessError, match=r"several JMH jars \(a.jar, b.jar\); choose one with --jar"):
        find_benchmarks_jar([tmp_path / "target"])


def test_jar_option_takes_a_path_or_a_glob(tmp_path):
    jar = make_jar(tmp_path / "out" / "bench-2.1.jar", "org.openjdk.jmh.Main", JMH_INSIDE)
    make_jar(tmp_path / "out" / "lib.jar", "com.example.App")
    assert jar_from_pattern("out/bench-*.jar", tmp_path).path == jar
    assert jar_from_pattern("**/*.jar", tmp_path).path == jar
    assert jar_from_pattern(str(jar), tmp_path / "elsewhere").path == jar
    with pytest.raises(HarnessError, match="--jar nope/\\*.jar: no file matches"):
        jar_from_pattern("nope/*.jar", tmp_path)
    with pytest.raises(HarnessError, match="lib.jar neither runs org.openjdk.jmh.Main"):
        jar_from_pattern("out/lib.jar", tmp_path)


def test_jmh_version_from_pom_properties_or_jar_names(tmp_path):
    pom = {"META-INF/maven/org.openjdk.jmh/jmh-core/pom.properties": "#x\nartifactId=jmh-core\nversion=1.37\n"}
    assert jmh_version(make_jar(tmp_path / "a.jar", entries=pom)) == "1.37"
    nested = {"BOOT-INF/lib/jmh-core-1.36.jar": ""}
    assert jmh_version(make_jar(tmp_path / "b.jar", entries=nested)) == "1.36"
    classpath = "lib/commons-math3-3.6.1.jar lib/jopt-simple-5.0.4.jar lib/jmh-core-1.35.jar"
    assert jmh_version(make_jar(tmp_path / "c.jar", class_path=classpath)) == "1.35"
    assert jmh_version(make_jar(tmp_path / "d.jar")) is None
    (tmp_path / "e.jar").write_text("not a zip")
    assert jmh_version(tmp_path / "e.jar") is None


def test_build_of_missing_directory_or_program_is_a_harness_error(tmp_path):
    with pytest.raises(HarnessError, match="no such project directory"):
        JmhHarness().build(tmp_path / "nope", BuildSpec(), print)
    spec = BuildSpec(command=("rigorbench-no-such-build-tool", "package"))
    with pytest.raises(HarnessError, match="cannot run rigorbench-no-such-build-tool package"):
        JmhHarness().build(tmp_path, spec, lambda line: None)


def test_failed_build_reports_command_to_reproduce_and_output_tail(tmp_path):
    script = "import sys; [print('line', i) for i in range(30)]; sys.exit(3)"
    with pytest.raises(HarnessError) as error:
        JmhHarness().build(tmp_path, BuildSpec(command=(sys.executable, "-c", script)), lambda line: None)
    text, details = str(error.value), error.value.details
    assert text.startswith("build failed: `") and text.endswith("exited with code 3") and "\n" not in text
    assert details[0].startswith(f"reproduce it with: cd {tmp_path} && {sys.executable} -c")
    assert details[1:] == ("last lines of its output:", *(f"  line {i}" for i in range(10, 30)))


def test_a_failed_build_step_of_go_gbench_or_pyperf_says_how_to_reproduce_it(tmp_path):
    from rigorbench.harness.repetitions import run_checked

    with pytest.raises(HarnessError) as error:
        run_checked([sys.executable, "-c", "print('oops'); raise SystemExit(2)"], tmp_path, "building with CMake")
    assert str(error.value).startswith("building with CMake failed: `") and "\n" not in str(error.value)
    assert error.value.details[0].startswith(f"reproduce it with: cd {tmp_path} && {sys.executable} -c")
    assert error.value.details[1:] == ("last lines of its output:", "  oops")


def test_a_project_that_is_neither_maven_nor_gradle_needs_a_build_command(tmp_path):
    with pytest.raises(UserError, match="neither a Maven project .* give --build-command CMD and --jar PATH"):
        JmhHarness().build(tmp_path, BuildSpec(), print)


def test_java_option_takes_a_jdk_home_or_an_executable(tmp_path):
    java = Path(shutil.which("java")).resolve()
    home = java.parent.parent
    assert resolve_java(str(home)) == (home, java)
    assert resolve_java(str(java)) == (home, java)
    with pytest.raises(UserError, match=f"JDK not found: {tmp_path} is neither a JDK home"):
        resolve_java(str(tmp_path))
    launcher, env = JmhHarness(java_command=("java", "-Dx=1")).java_for(BuildSpec(java_home=str(home)))
    assert launcher == (str(java), "-Dx=1")
    assert env["JAVA_HOME"] == str(home) and env["PATH"].startswith(str(home / "bin"))


def test_a_fixed_iteration_count_is_refused_for_jmh_which_runs_iterations_for_a_time(tmp_path):
    from rigorbench.experiment.options import iteration_time

    assert iteration_time("100x", "--iteration-time") == "100x" and iteration_time("200ms", "--iteration-time") == "200ms"
    with pytest.raises(UserError, match="at least 1x"):
        iteration_time("0x", "--iteration-time")
    with pytest.raises(UserError, match="is not a time"):
        iteration_time("x", "--iteration-time")
    with pytest.raises(UserError, match="JMH runs iterations for a time"):
        trial_command(["java", "-jar", "b.jar"], RunSettings(iteration_time="100x"), tmp_path / "r.json")
