"""Reports built once per session: the example project's data and a 100-benchmark suite."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pytest

from rigorbench.cli import main

ROOT = Path(__file__).resolve().parents[2]
JMH = ROOT / "tests" / "testdata" / "jmh"
# The synthetic suite lives with the benchmarks (benchmarks/bench_report.py times it).
sys.path.insert(0, str(ROOT / "benchmarks"))

from synthetic_suite import write_suite  # noqa: E402


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


@pytest.fixture(scope="session")
def example_html(tmp_path_factory) -> Path:
    """v1 against v2 of examples/jmh-demo: console logs (warmup included) and JSON trials."""
    path = tmp_path_factory.mktemp("example") / "example.html"
    code, _, err = run_cli(
        "report", "--baseline", str(JMH / "v1-trial1.log"), str(JMH / "v1-trial2.json"),
        "--contender", str(JMH / "v2-trial1.log"), str(JMH / "v2-trial2.json"),
        "--html", str(path), "--lint", str(ROOT / "examples" / "jmh-lint"),
    )
    assert code == 0, err
    return path


@pytest.fixture(scope="session")
def long_html(tmp_path_factory) -> Path:
    """One version, 60-iteration forks with -prof gc and -prof comp: steady state and events."""
    path = tmp_path_factory.mktemp("long") / "long.html"
    code, _, err = run_cli("report", str(JMH / "long-v2-trial1.json.gz"), str(JMH / "long-v2-trial2.json.gz"),
                           "--one-version", "--html", str(path))
    assert code == 0, err
    return path


# Large enough to collapse half the sections (report.OPEN_SECTIONS = 25) and to hold every
# pattern of the suite (5 planted slowdowns, 5 speed-ups, 10 scaling groups); its 200 figures
# are most of the suite's report time (about a minute for 100 benchmarks), so not larger.
SUITE_SIZE = 50


@pytest.fixture(scope="session")
def suite_files(tmp_path_factory) -> tuple[list[Path], list[Path]]:
    return write_suite(tmp_path_factory.mktemp("suite"), size=SUITE_SIZE)


@pytest.fixture(scope="session")
def suite_html(tmp_path_factory, suite_files) -> Path:
    base, head = suite_files
    path = tmp_path_factory.mktemp("suite-report") / "suite.html"
    code, _, err = run_cli("report", "--baseline", *map(str, base), "--contender", *map(str, head),
                           "--html", str(path), "--resamples", "2000")
    assert code == 0, err
    return path


# Names as real suites have them (long packages, long methods, long parameter values) with
# markup in them: the report must wrap them, escaped, and keep the verdicts in view.
LONG_NAMES = (
    ("org.example.serialization.jackson.<b>Deeply</b>NestedObjectMapperBenchmark."
     "deserializeLargeArrayOfPolymorphicRecordsWithTypeInformation",
     {"payload": "<img src=x onerror=alert(1)>", "encoding": "UTF_16_LITTLE_ENDIAN_WITH_BYTE_ORDER_MARK"}),
    ("com.example.collections.concurrent.ConcurrentSkipListMapUnderContentionBenchmark."
     "putIfAbsentWhileSixteenThreadsIterateAndRemoveConcurrently", {"threads": "16"}),
    ("net.example.unbrokenbenchmarknamewithoutanydotsorbracesatallthatgoesonandonandonforever<i>x</i>.Bench.run", None),
)


def write_long_names(directory: Path) -> tuple[list[Path], list[Path]]:
    """Two trials per version of LONG_NAMES as JMH JSON; the first case 30% slower in the
    contender, the second 20% faster, the third the same."""
    from rigorbench.formats.writers import write_jmh_json
    from rigorbench.model import BenchmarkCase, Metric, SampleTable, Series

    metric = Metric("time", "ns/op", False, True)
    rng = np.random.default_rng(3)
    files: tuple[list[Path], list[Path]] = ([], [])
    for position, label in enumerate(("baseline-with-a-long-label", "contender-with-a-long-label")):
        for trial in range(2):
            series = []
            for number, (name, params) in enumerate(LONG_NAMES):
                change = (1.3, 1 / 1.2, 1.0)[number] if position else 1.0
                fork = np.repeat(np.arange(2), 10)
                values = 1234.5 * (number + 1) * change * rng.lognormal(0, 0.02, 20)
                series.append(Series(BenchmarkCase.of("jmh", name, params), metric,
                                     SampleTable.build(values, fork=fork, iteration=np.tile(np.arange(10), 2))))
            path = directory / f"{label}-trial{trial + 1}.json"
            path.write_text(write_jmh_json(series), encoding="utf-8")
            files[position].append(path)
    return files


@pytest.fixture(scope="session")
def long_names_html(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("long-names")
    base, head = write_long_names(folder)
    path = folder / "long-names.html"
    code, _, err = run_cli("report", "--baseline", *map(str, base), "--contender", *map(str, head),
                           "--html", str(path), "--resamples", "1000")
    assert code == 0, err
    return path


HISTORY_HOSTILE = "<script>alert(1)</script>"


def write_history_csv(path: Path, rows: int = 30) -> tuple[Path, list[str]]:
    """Three metric columns of one nightly history: ``latency`` 20% slower from row 18,
    ``throughput`` 10% faster from row 10, and a flat column with a hostile name."""
    rng = np.random.default_rng(7)
    commits = [f"{rng.integers(0, 2**63):016x}" * 3 for _ in range(rows)]
    commits = [c[:40] for c in commits]
    lines = [f'time,commit,branch,latency,latency.ci_low,latency.ci_high,throughput,"{HISTORY_HOSTILE}"\n']
    for i, commit in enumerate(commits):
        latency = (100.0 if i < 18 else 120.0) * rng.lognormal(0, 0.01)
        throughput = (1000.0 if i < 10 else 1100.0) * rng.lognormal(0, 0.01)
        flat = 50 * rng.lognormal(0, 0.01)
        lines.append(f"2026-03-{1 + i // 24:02d}T{i % 24:02d}:00:00Z,{commit},<b>main</b>,{latency:.3f},"
                     f"{latency * 0.98:.3f},{latency * 1.02:.3f},{throughput:.3f},{flat:.3f}\n")
    path.write_text("".join(lines))
    return path, commits


@pytest.fixture(scope="session")
def history_store(tmp_path_factory) -> tuple[Path, list[str]]:
    """A real SQLite store holding the history of ``write_history_csv``, and its commits."""
    folder = tmp_path_factory.mktemp("history")
    csv, commits = write_history_csv(folder / "nightly.csv")
    db = folder / "h.db"
    code, _, err = run_cli("history", "import", "--csv", str(csv), "--store", str(db), "--higher-is-better", "throughput")
    assert code == 0, err
    return db, commits


@pytest.fixture(scope="session")
def history_html(tmp_path_factory, history_store) -> Path:
    db, _ = history_store
    path = tmp_path_factory.mktemp("history-report") / "history.html"
    code, _, err = run_cli("report", "--history", "--store", str(db), "--html", str(path),
                           "--repo-url", "https://github.com/owner/repo")
    assert code == 0, err
    return path


CLUSTER_NAMES = ("box-<a>&", "box-<b>&")


def write_cluster_store(path: Path, names: tuple[str, ...], *, trials_per_instance: int = 2, design: str = "trial-based") -> Path:
    """A real SQLite store with a --cluster run as the dispatcher records it: trial-based, v1
    and v2 on every instance; instance-based, v1 on the first instance and v2 on the second.
    Trials are numbered over the experiment, the samples' instance column is the name's place
    in the run's ``instance_names``, the environment has the name. The second instance is 30%
    slower for both versions; v2 is 5% slower than v1."""
    from rigorbench.model import BenchmarkCase, Metric, SampleTable, Series
    from rigorbench.store import Execution, ResultStore, TrialRecord, VersionInfo

    case = BenchmarkCase.of("jmh", "org.example.Cluster.run")
    metric = Metric("time", "ns/op", higher_is_better=False, primary=True)
    labels = ("v1", "v2")
    trials = len(names) * trials_per_instance
    plan = [(t, label) for t in range(trials) for label in labels] if design == "trial-based" else \
        [(t, labels[t // trials_per_instance]) for t in range(trials)]
    schedule = [Execution(t, label, position) for position, (t, label) in enumerate(plan)]
    rng = np.random.default_rng(20)
    with ResultStore.open(path) as store:
        run_id = store.create_run(
            harness="jmh", project="demo", order="rmit", seed=1, tool_version="0.1.0",
            settings={"trials": trials, "cluster": {"design": design, "instances": len(names),
                                                    "trials_per_instance": trials_per_instance, "instance_names": list(names)}},
            versions=[VersionInfo(label, label, None, None) for label in labels], schedule=schedule,
        )
        records = []
        for execution in schedule:
            code = execution.trial // trials_per_instance
            level = 100.0 * (1.3 if code == 1 else 1.0) * (1.05 if execution.label == "v2" else 1.0)
            fork = np.repeat(np.arange(2), 8)
            samples = SampleTable.build(level * rng.uniform(0.98, 1.02, 16), fork=fork, iteration=np.tile(np.arange(8), 2),
                                        instance=np.full(16, code))
            records.append((execution, TrialRecord("done", "2026-01-01T00:00:00+00:00", "2026-01-01T00:01:00+00:00", 60.0,
                                                   [Series(case, metric, samples)], {"instance": names[code]})))
        store.record_executions(run_id, records)
        store.finish_run(run_id, status="finished", wall_seconds=240.0, harness_seconds=240.0)
    return path


@pytest.fixture(scope="session")
def cluster_html(tmp_path_factory) -> Path:
    """The report of a stored two-instance --cluster run whose instance names need escaping."""
    folder = tmp_path_factory.mktemp("cluster")
    db = write_cluster_store(folder / "cluster.db", CLUSTER_NAMES)
    path = folder / "cluster.html"
    code, _, err = run_cli("report", "--store", str(db), "--html", str(path), "--resamples", "500")
    assert code == 0, err
    return path
