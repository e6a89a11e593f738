"""``rigorbench lint --store DB``: findings graded by a stored run's times (written here, in
process), in text, JSON and SARIF; bad stores refused in one line with nothing written; and
``ab`` printing the grading of the run it just measured."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.model import BenchmarkCase, Metric, SampleTable, Series
from tests.cli.test_lint_cli import lint
from rigorbench.store import Execution, ResultStore, TrialRecord, VersionInfo

from tests.cli.sarif_check import assert_valid_sarif

SORT = """\
package demo;

import java.util.Arrays;
import java.util.Random;
import org.openjdk.jmh.annotations.*;

@State(Scope.Thread)
public class SortBench {
    @Param({"100000", "400000"})
    public int size;
    private int[] original;
    private int[] data;

    @Setup(Level.Trial)
    public void make() {
        original = new Random(1).ints(size).toArray();
    }

    @Setup(Level.Invocation)
    public void copy() {
        data = original.clone();
    }

    @Benchmark
    public int[] sort() {
        Arrays.sort(data);
        return data;
    }
}
"""

TINY = """\
package demo;

import org.openjdk.jmh.annotations.*;

@State(Scope.Thread)
public class TinyBench {
    private int x = 3;
    private int y;

    @Setup(Level.Invocation)
    public void bump() {
        y = x + 1;
    }

    @Benchmark
    public void dropped() {
        Math.log(x);
    }
}
"""

TIME = Metric("time", "ns/op", higher_is_better=False, primary=True)
THROUGHPUT = Metric("throughput", "ops/s", higher_is_better=True, primary=True)


@pytest.fixture
def project(tmp_path) -> Path:
    src = tmp_path / "proj" / "src" / "demo"
    src.mkdir(parents=True)
    (src / "SortBench.java").write_text(SORT)
    (src / "TinyBench.java").write_text(TINY)
    return tmp_path / "proj"


def table(mean: float) -> SampleTable:
    """One fork: a warmup iteration 5x slower (left out of the mean), then three around ``mean``."""
    return SampleTable.build([mean * 5, mean * 0.99, mean, mean * 1.01], fork=[0] * 4, iteration=[0, 0, 1, 2],
                             warmup=[True, False, False, False])


def write_run(path: Path, versions: dict[str, list[Series]]) -> int:
    """One finished run of one trial per version, as ``ab`` stores it; its id."""
    plan = [Execution(0, label, i) for i, label in enumerate(versions)]
    with ResultStore.open(path) as store:
        run_id = store.create_run(harness="jmh", project="p", order="rmit", seed=1, settings={"trials": 1},
                                  versions=[VersionInfo(label, label, None, None) for label in versions],
                                  schedule=plan, tool_version="test")
        for e in plan:
            store.record_execution(run_id, e, TrialRecord("done", "s", "e", 0.1, versions[e.label], {}))
        store.finish_run(run_id, status="finished", wall_seconds=1.0, harness_seconds=1.0)
    return run_id


def measured(sort_ms: float, tiny_ns: float) -> list[Series]:
    """SortBench.sort at ``sort_ms`` (two sizes, as throughput: ops/s) and TinyBench.dropped at ``tiny_ns``."""
    sorts = [Series(BenchmarkCase.of("jmh", "demo.SortBench.sort", {"size": size}), THROUGHPUT,
                    table(1000.0 / (sort_ms * factor))) for size, factor in (("100000", 1.0), ("400000", 4.0))]
    return [*sorts, Series(BenchmarkCase.of("jmh", "demo.TinyBench.dropped"), TIME, table(tiny_ns))]


@pytest.fixture
def store(tmp_path) -> Path:
    path = tmp_path / "results.db"
    write_run(path, {"v1": measured(30.0, 0.4)})
    return path


def by_rule(document: dict) -> dict:
    return {(Path(f["path"]).name, f["rule"]): f for f in document["findings"]}


def test_json_grades_invo_by_measured_time_and_confirms_removed_work(project, store):
    code, out, err = lint(str(project), "--store", str(store), "--format", "json")
    assert code == 1, err
    found = by_rule(json.loads(out))
    sort_invo = found[("SortBench.java", "INVO")]
    assert sort_invo["severity"] == "info"
    assert sort_invo["measured"]["decision"] == "cleared" and sort_invo["measured"]["unit"] == "ms/op"
    # throughput turned into time per op: 30 ms for size 100000, 120 ms for size 400000
    assert sort_invo["measured"]["low"] == pytest.approx(30.0) and sort_invo["measured"]["high"] == pytest.approx(120.0)
    assert sort_invo["measured"]["params"] == {"size": ["100000", "400000"]}
    assert sort_invo["measured"]["benchmarks"] == ["demo.SortBench.sort"] and sort_invo["measured"]["cases"] == 2
    assert sort_invo["measured"]["source"] == "run 1 (version v1)"
    tiny_invo = found[("TinyBench.java", "INVO")]
    assert tiny_invo["severity"] == "warning" and tiny_invo["measured"]["decision"] == "confirmed"
    assert tiny_invo["measured"]["value"] == pytest.approx(0.4) and tiny_invo["measured"]["unit"] == "ns/op"
    retu = found[("TinyBench.java", "RETU")]
    assert retu["severity"] == "error" and retu["measured"]["decision"] == "confirmed"
    assert "the work was likely removed" in retu["measured"]["reason"]
    assert "3 findings graded by the times measured in run 1 (version v1) of" in err


def test_without_store_the_json_has_no_measured_object(project):
    code, out, _ = lint(str(project), "--format", "json")
    assert all("measured" not in f for f in json.loads(out)["findings"])


def test_text_says_what_was_measured_and_hides_the_cleared_finding(project, store):
    code, out, err = lint(str(project), "--store", str(store))
    assert code == 1
    assert "SortBench" not in out and "1 info finding not shown" in err
    assert ("    measured: 0.4 ns/op in run 1 (version v1): under 1 ms per call, where JMH's timestamps around "
            "every call matter; confirmed") in out
    code, out, _ = lint(str(project), "--store", str(store), "--show-info")
    assert ("    measured: 30 to 120 ms/op in run 1 (version v1) (2 cases: size=100000,400000): at least 10x JMH's "
            "1 ms bound per call, where the timestamps are negligible; cleared to info") in out


def test_a_sub_millisecond_sort_raises_the_static_info_to_a_confirmed_warning(project, tmp_path):
    fast = tmp_path / "fast.db"
    write_run(fast, {"v1": measured(0.2, 50.0)})
    code, out, _ = lint(str(project), "--store", str(fast), "--format", "json")
    found = by_rule(json.loads(out))
    sort_invo = found[("SortBench.java", "INVO")]       # 'sorts': info without data
    assert sort_invo["severity"] == "warning" and sort_invo["measured"]["decision"] == "confirmed"
    assert sort_invo["measured"]["reason"].startswith("200 to 800 us/op") and "raised to warning" in sort_invo["measured"]["reason"]
    retu = found[("TinyBench.java", "RETU")]
    assert retu["measured"]["decision"] == "kept" and "plausible" in retu["measured"]["reason"]


def test_sarif_carries_the_measurement_in_properties_and_validates(project, store, tmp_path):
    code, out, _ = lint(str(project), "--store", str(store), "--format", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    graded = [r for r in results if "measured" in r["properties"]]
    assert len(graded) == 3
    cleared = next(r for r in graded if r["properties"]["measured"]["decision"] == "cleared")
    assert cleared["level"] == "note" and "Measured: 30 to 120 ms/op" in cleared["message"]["text"]
    assert_valid_sarif(out, tmp_path)


def test_the_newest_run_and_the_last_version_by_default_else_as_chosen(project, tmp_path):
    path = tmp_path / "two.db"
    write_run(path, {"v1": measured(30.0, 0.4)})
    write_run(path, {"base": measured(0.1, 0.4), "contender": measured(50.0, 20.0)})

    def sort_invo(*args):
        code, out, err = lint(str(project), "--store", str(path), "--format", "json", *args)
        return by_rule(json.loads(out))[("SortBench.java", "INVO")]["measured"]

    assert sort_invo()["source"] == "run 2 (version contender)" and sort_invo()["decision"] == "cleared"
    assert sort_invo("--version", "base")["decision"] == "confirmed"
    assert sort_invo("--run", "1")["source"] == "run 1 (version v1)"


@pytest.mark.parametrize("make, args, message", [
    (None, (), "no results store here"),
    ("text", (), "not a rigorbench results store"),
    ("empty", (), "no run"),
    ("run", ("--run", "7"), "7"),
    ("run", ("--version", "v9"), "v9"),
])
def test_a_bad_store_is_one_line_exit_2_and_nothing_is_written(project, tmp_path, make, args, message):
    path = tmp_path / "given.db"
    if make == "text":
        path.write_text("not a database\n")
    elif make == "empty":
        ResultStore.open(path).close()
    elif make == "run":
        write_run(path, {"v1": measured(30.0, 0.4)})
    before = path.read_bytes() if path.exists() else None
    code, out, err = lint(str(project), "--store", str(path), *args)
    assert code == 2 and out == ""
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert (path.read_bytes() if path.exists() else None) == before
    # (a read-only SQLite connection to a WAL store leaves its -wal and -shm files, as 'runs' does)
    assert {p.name for p in tmp_path.iterdir()} - {"given.db-wal", "given.db-shm"} == {"proj", *(["given.db"] if make else [])}


def test_run_and_version_need_a_store(project):
    code, _, err = lint(str(project), "--run", "1")
    assert code == 2 and "--run and --version go with --store" in err


AB_BENCH = """\
package demo;

import org.openjdk.jmh.annotations.*;

@State(Scope.Thread)
public class Bench {
    private int[] data;

    @Setup(Level.Invocation)
    public void fresh() {
        data = new int[] {3, 1, 2};
    }

    @Benchmark
    public int a() {
        return data[0];
    }
}
"""


def test_ab_prints_the_grading_of_the_run_it_measured_and_the_html_shows_it(tmp_path, fake):
    for label in ("v1", "v2"):
        (tmp_path / "proj" / label / "src").mkdir(parents=True)
        (tmp_path / "proj" / label / "src" / "Bench.java").write_text(AB_BENCH)
    html = tmp_path / "report.html"
    out, err = io.StringIO(), io.StringIO()
    code = main(["ab", str(tmp_path / "proj"), "--base", "v1", "--contender", "v2", "--trials", "2",
                 "--store", str(tmp_path / "r.db"), "--html", str(html)], out, err)
    assert code == 0, err.getvalue()
    # the fake harness measures demo.Bench.a at about 100 ns/op (v1) and 120 ns/op (v2)
    for label, ns in (("v1", "100"), ("v2", "120")):
        assert (f"lint {label}: src/Bench.java:9:5: INVO [warning] measured {ns} ns/op in run 1 (version {label}): "
                "under 1 ms per call") in err.getvalue()
    assert "measured: 120 ns/op in run 1 (version v2)" in html.read_text()


def test_a_version_that_cannot_be_graded_after_a_run_keeps_its_findings(project, store):
    from rigorbench import api
    from rigorbench.cli.prelint import grade_after_run

    result = api.lint([project])
    said: list[str] = []
    with ResultStore.read(store) as opened:
        graded = grade_after_run(opened, 1, {"v1": result, "gone": result}, said.append)
    assert graded["gone"] is result and all(f.measured is None for f in graded["gone"].findings)
    assert sum(f.measured is not None for f in graded["v1"].findings) == 3
    assert [line for line in said if "gone" in line] == [f"lint gone: findings not graded: {store}: run 1 has versions v1; not gone"]
