"""``ab`` and ``list`` on the project layouts real JMH users have, with real Maven, Gradle and JMH.

The fixture projects (``projects.py``) are git repositories the tests make; every version
is a commit checked out into a temporary worktree, as for a user's own repository.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.store import ResultStore
from tests.e2e import projects

pytestmark = pytest.mark.e2e

TINY = ["--forks", "1", "--warmup-iterations", "1", "--iterations", "2", "--warmup-time", "100ms",
        "--iteration-time", "100ms", "--resamples", "1000", "--no-lint"]
CORE = "dev.rigorbench.fixture.bench.CoreBenchmark.work"
NEW = "dev.rigorbench.fixture.bench.NewBenchmark.fresh"


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def worktrees(repo: Path) -> int:
    return len(projects.git(repo, "worktree", "list").splitlines())


@pytest.fixture(scope="module")
def reactor(tmp_path_factory) -> Path:
    return projects.multi_module(tmp_path_factory.mktemp("reactor") / "repo")


@pytest.fixture(scope="module")
def first_run(reactor, tmp_path_factory):
    """One real A/B of the reactor's two commits, from the repository root."""
    db = tmp_path_factory.mktemp("store") / "results.db"
    java_home = Path(shutil.which("java")).resolve().parent.parent
    result = cli("ab", str(reactor), "--base", "HEAD~1", "--contender", "HEAD", "--trials", "3", *TINY,
                 "--store", str(db), "--format", "json", "--java", str(java_home))
    return db, java_home, result


def test_multi_module_ab_builds_each_commits_sibling_module_and_skips_one_sided_benchmarks(reactor, first_run):
    db, java_home, (code, out, err) = first_run
    print(err[-3000:])
    assert code == 0
    # Built from the root with -pl/-am, so each commit's own core module is used.
    assert err.count("$ mvn -B -q -DskipTests -pl bench -am package") == 2
    assert err.count("bench/target/microbenchmarks.jar") == 2
    assert f"not run: {NEW} is only in HEAD" in err
    (comparison,) = json.loads(out)["comparisons"]
    assert comparison["benchmark"] == CORE and comparison["params"] == {"size": "2000"}
    # The planted 4x cheaper core of HEAD shows: the sibling SNAPSHOT was not taken from ~/.m2 (that
    # would measure one core twice, about +0%). Its estimate, not its verdict: 3 trials of two 100 ms
    # iterations beside another test worker's builds left even this 4x change inconclusive once.
    assert comparison["change_pct"] > 100 and comparison["verdict"] in {"faster", "inconclusive"}  # ops/s: about 4x
    assert worktrees(reactor) == 1
    with ResultStore.open(db, create=False) as store:
        run = store.run(1)
        assert run.settings["not_run"] == {NEW: ["HEAD"]}
        assert run.settings["build"]["HEAD"]["java_home"] == str(java_home)
        environment = store.environments(1, "HEAD")[0]
        assert environment["tool.build_module"] == "bench" and environment["tool.jmh"] == "1.37"
        assert environment["tool.java_path"].startswith(str(java_home)) and environment["build.cached"] == "false"
        series = store.load_series(1, "HEAD")
        assert {s.case.name for s in series} == {CORE}


def test_second_run_of_the_same_commits_takes_the_jars_from_the_build_cache(reactor, first_run):
    db, java_home, _ = first_run
    code, out, err = cli("ab", str(reactor), "--base", "HEAD~1", "--contender", "HEAD", "--trials", "1", *TINY,
                         "--store", str(db), "--java", str(java_home))
    assert code == 0, err[-2000:]
    assert err.count("build cache hit") == 2 and "$ mvn" not in err
    with ResultStore.open(db, create=False) as store:
        assert store.environments(2, "HEAD")[0]["build.cached"] == "true"
        assert len(store.finished(1)) == 6  # the first run is untouched


def test_list_from_a_module_directory_shows_what_each_commit_has(reactor, first_run):
    db, java_home, _ = first_run
    code, out, err = cli("ab", str(reactor / "bench"), "--base", "HEAD~1", "--contender", "HEAD", "--list",
                         "--quick", "--store", str(db), "--java", str(java_home))
    assert code == 0, err
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith("dev.")}
    assert rows[CORE].split()[1:4] == ["size={2000}", "yes", "yes"]
    assert rows[NEW].split()[1:4] == ["-", "yes", "only"] and "only in HEAD: not run" in rows[NEW]
    assert "1 benchmark (1 case) in every version; 1 only in some (not run)" in out
    assert "5 trials x 2 versions x 1 case x 2 forks" in out and "about" in out
    assert err.count("build cache hit") == 2  # the same commits and settings as the first run
    with ResultStore.open(db, create=False) as store:
        assert len(store.list_runs()) == 2  # listing stores nothing


def _other_jdk() -> Path | None:
    """A JDK other than the default one (the machine has a second Temurin JDK), if any."""
    default = Path(shutil.which("java")).resolve().parent.parent
    for home in sorted(Path("/usr/lib/jvm").glob("*")):
        java = home / "bin" / "java"
        if java.is_file() and not home.is_symlink() and java.resolve().parent.parent != default:
            return home
    return None


def test_java_option_builds_and_runs_with_that_jdk_and_records_it(reactor, tmp_path):
    other = _other_jdk()
    if other is None:
        pytest.skip("no second JDK on this machine (the set-up has one: Temurin beside OpenJDK 17)")
    db = tmp_path / "results.db"
    code, out, err = cli("ab", str(reactor), "--base", "HEAD~1", "--contender", "HEAD", "--trials", "1", *TINY,
                         "--store", str(db), "--java", str(other))
    assert code == 0, err[-2000:]
    assert err.count("$ mvn") == 2  # built with that JDK (JAVA_HOME and PATH set for Maven)
    release = dict(line.split("=", 1) for line in (other / "release").read_text().splitlines() if "=" in line)
    version = release["JAVA_VERSION"].strip('"')
    with ResultStore.open(db, create=False) as store:
        for label in ("HEAD~1", "HEAD"):
            environment = store.environments(1, label)[0]
            assert environment["tool.java"] == version and environment["tool.java_path"] == str((other / "bin" / "java").resolve())
            # What JMH itself reports about the JVM that ran the forks.
            assert environment["jdk_version"] == version


def test_two_jmh_modules_need_module_and_the_chosen_one_is_built(tmp_path):
    repo = projects.two_jmh_modules(tmp_path / "repo")
    code, out, err = cli("list", str(repo))
    assert code == 2 and err.strip().splitlines()[-1] == (
        f"rigorbench: error: {repo}: several JMH modules (perf-a, perf-b); choose one with --module NAME"
    )
    code, out, err = cli("list", str(repo), "--module", "perf-b")
    assert code == 0, err
    assert "dev.rigorbench.fixture.perfb.BBenchmark.spin" in out and "ABenchmark" not in out
    assert "-pl perf-b -am package" in err and "perf-b/target/benchmarks.jar" in err
    # A module directory as PATH needs no --module.
    code, out, err = cli("list", str(repo / "perf-a"))
    assert code == 0 and "perfa.ABenchmark.spin" in out, err


def test_gradle_build_with_jmh_jar_task(tmp_path):
    if shutil.which("gradle") is None:
        pytest.skip("gradle is not installed and could not be (make test installs Debian's gradle as root)")
    repo = projects.gradle_multi(tmp_path / "repo")
    db = tmp_path / "results.db"
    code, out, err = cli("ab", str(repo), "--base", "HEAD~1", "--contender", "HEAD", "--trials", "2", *TINY,
                         "--store", str(db), "--format", "json")
    print(err[-3000:])
    assert code in (0, 1)
    assert err.count("--no-daemon :bench:jmhJar") == 2 and "bench/build/libs/bench-jmh.jar" in err
    assert f"not run: {NEW} is only in HEAD" in err
    (comparison,) = json.loads(out)["comparisons"]
    assert comparison["benchmark"] == "dev.rigorbench.fixture.bench.GBenchmark.spin"
    assert comparison["baseline"]["n"] == comparison["contender"]["n"] == 4
    assert worktrees(repo) == 1


# -- failure paths: one line, exit 2, no worktree left, nothing stored lost --------------------


def _broken_commit(tmp_path: Path, reactor: Path | None = None) -> Path:
    """The reactor's two commits and a third that does not compile; with ``reactor``, a clone
    of it (the same commits, so the first run's build of HEAD~1 is in the build cache)."""
    if reactor is None:
        repo = projects.multi_module(tmp_path / "broken")
    else:
        repo = tmp_path / "broken"
        subprocess.run(["git", "clone", "-q", str(reactor), str(repo)], check=True, capture_output=True)
        projects.git(repo, "config", "user.email", "tests@rigorbench.dev")
        projects.git(repo, "config", "user.name", "rigorbench tests")
    core = repo / "core/src/main/java/dev/rigorbench/fixture/core/Core.java"
    core.write_text(core.read_text().replace("return sum;", "return sum"))
    projects.commit_all(repo, "a syntax error")
    return repo


def _no_jmh(tmp_path: Path) -> Path:
    repo = tmp_path / "nojmh"
    projects._write(repo, {"pom.xml": projects._aggregator(["lib"]), "lib/pom.xml": projects._pom("lib")})
    projects.commit_all(repo, "one")
    return repo


FAILURES = {
    "no JMH module": (lambda t, _: _no_jmh(t), ["HEAD", "HEAD"], [],
                      "no module of this Maven build depends on org.openjdk.jmh:jmh-core"),
    "several modules": (lambda t, _: projects.two_jmh_modules(t / "two"), ["HEAD", "HEAD"], [],
                        "several JMH modules (perf-a, perf-b); choose one with --module NAME"),
    "unknown module": (lambda t, _: projects.two_jmh_modules(t / "two"), ["HEAD", "HEAD"], ["--module", "perf-c"],
                       "no module 'perf-c' in this Maven build (JMH modules: perf-a, perf-b)"),
    # HEAD~1 is the reactor's HEAD, built with the first run's JDK: a build cache hit, only HEAD is built
    "build failed": (lambda t, reactor: _broken_commit(t, reactor), ["HEAD~1", "HEAD"], ["--java", "JAVA_HOME"],
                     "version HEAD: build failed: `mvn -B -q -DskipTests -pl bench -am package` exited with code 1"),
    "jar not found": (lambda t, _: projects.two_jmh_modules(t / "two"), ["HEAD", "HEAD"], ["--module", "perf-a", "--build-command", "true"],
                      "no JMH benchmark jar (found no jars)"),
    "gradle offline": (lambda t, _: _committed(projects.with_offline_wrapper(t / "offline")), ["HEAD", "HEAD"], [],
                       "the Gradle wrapper could not download https://services.gradle.org/distributions/gradle-8.5-bin.zip (no network?)"),
    "JDK not found": (lambda t, _: projects.two_jmh_modules(t / "two"), ["HEAD", "HEAD"], ["--java", "/no/such/jdk"],
                      "JDK not found: /no/such/jdk is neither a JDK home (with bin/java) nor a java executable"),
    "bad build command": (lambda t, _: projects.two_jmh_modules(t / "two"), ["HEAD", "HEAD"], ["--build-command", "mvn 'unclosed"],
                          "--build-command: No closing quotation"),
}


def _committed(repo: Path) -> Path:
    projects.commit_all(repo, "offline wrapper")
    return repo


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_failure_paths_say_one_thing_and_leave_nothing_behind(case, tmp_path, reactor, first_run):
    make, (base, contender), extra, expected = FAILURES[case]
    repo = make(tmp_path, reactor)
    db, java_home, _ = first_run
    extra = [str(java_home) if part == "JAVA_HOME" else part for part in extra]
    with ResultStore.open(db, create=False) as store:
        before = (len(store.list_runs()), len(store.finished(1)))
    code, out, err = cli("ab", str(repo), "--base", base, "--contender", contender, "--base-label", "a",
                         "--contender-label", "HEAD", *extra, *TINY, "--store", str(db))
    print(err)
    first = [line for line in err.splitlines() if line.startswith("rigorbench: error:")]
    assert code == 2 and len(first) == 1 and expected in first[0]
    assert "Traceback" not in err and out == ""
    assert worktrees(repo) == 1
    with ResultStore.open(db, create=False) as store:
        assert (len(store.list_runs()), len(store.finished(1))) == before


def test_failed_build_shows_how_to_reproduce_it_and_the_last_lines(tmp_path):
    repo = _broken_commit(tmp_path)
    code, out, err = cli("list", str(repo))
    assert code == 2
    assert f"reproduce it with: cd {repo} && mvn -B -q -DskipTests -pl bench -am package" in err
    assert "COMPILATION ERROR" in err or "';' expected" in err


def test_failed_build_of_a_revision_says_how_to_check_it_out_again(tmp_path):
    repo = _broken_commit(tmp_path)
    commit = projects.git(repo, "rev-parse", "HEAD").strip()
    code, out, err = cli("list", str(repo), "--version", "HEAD")
    assert code == 2 and worktrees(repo) == 1
    assert "reproduce it with: cd CHECKOUT && mvn -B -q -DskipTests -pl bench -am package" in err
    assert f"where CHECKOUT is a checkout of {commit}: git worktree add --detach CHECKOUT {commit}" in err


def test_gradle_without_wrapper_or_gradle_on_path_says_so(tmp_path, monkeypatch):
    from rigorbench.harness import gradle

    repo = projects.gradle_multi(tmp_path / "repo")
    monkeypatch.setattr(gradle.shutil, "which", lambda name: None)
    code, out, err = cli("list", str(repo))
    assert code == 2
    assert "a Gradle build without a wrapper (gradlew), and gradle is not on the PATH" in err


def test_run_file_builds_versions_with_their_own_settings(reactor, first_run, tmp_path):
    """``rigorbench.toml``: [build] for all versions, a version's own keys over it."""
    db, java_home, _ = first_run
    config = tmp_path / "rigorbench.toml"
    config.write_text(f"""
[experiment]
project = "{reactor}"
store = "{db}"
[build]
module = "bench"
java_home = "{java_home}"
[[versions]]
label = "old"
source = "HEAD~1"
[[versions]]
label = "new"
source = "HEAD"
jar = "bench/target/micro*.jar"
""")
    code, out, err = cli("run", str(config), "--list")
    assert code == 0, err
    assert out.splitlines()[0].split()[-2:] == ["old", "new"]
    # "old" is built as in the first run (naming the module the root would choose changes
    # nothing): a cache hit. "new" names its jar: other build settings, so it is built.
    assert err.count("$ mvn -B -q -DskipTests -pl bench -am package") == 1 and err.count("build cache hit") == 1
    assert err.index("building old") < err.index("build cache hit") < err.index("building new")
    assert "benchmark jar: " in err and "bench/target/microbenchmarks.jar" in err
    code, out, err = cli("run", str(config), "--list")
    assert err.count("build cache hit") == 2 and "$ mvn" not in err


def test_no_stray_processes_or_worktrees_after_all(reactor):
    assert worktrees(reactor) == 1
    assert subprocess.run(["git", "-C", str(reactor), "status", "--porcelain"], capture_output=True, text=True).stdout == ""


def test_sigterm_during_a_build_stops_it_and_leaves_no_worktree(tmp_path):
    """As when a CI job is cancelled: exit 143, the build's processes gone, the worktree removed."""
    import signal
    import sys
    import time

    repo = projects.two_jmh_modules(tmp_path / "repo")
    pid_file = tmp_path / "build.pid"
    build = f"sh -c 'echo $$ > {pid_file}.tmp && mv {pid_file}.tmp {pid_file} && exec sleep 120'"
    process = subprocess.Popen(
        [sys.executable, "-m", "rigorbench", "list", str(repo), "--version", "HEAD", "--module", "perf-a",
         "--build-command", build], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 60
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    build_pid = int(pid_file.read_text())
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 143 and "rigorbench: interrupted" in err and "Traceback" not in err
    assert worktrees(repo) == 1
    # The build (now the sleep) was stopped with its group. Once rigorbench has exited, the
    # killed sleep is init's child and may stay a zombie for a moment until init reaps it (a
    # loaded machine saw os.kill(pid, 0) succeed right after exit): gone or a zombie both
    # mean it no longer runs; a live sleep 120 would still be there after 10 s.
    deadline = time.monotonic() + 10
    while _running(build_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(build_pid)


def _running(pid: int) -> bool:
    """Is ``pid`` a live process (not gone, not a zombie)?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
