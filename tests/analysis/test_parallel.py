"""Series analysed on worker processes: the same results as one at a time, on processes when
that is safe, on threads when it is not, and a clear error when a worker dies."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rigorbench import api, parallel
from rigorbench.analysis.settings import Settings
from rigorbench.cli import main as cli
from rigorbench.cpus import usable_cpus

JMH = Path(__file__).resolve().parents[1] / "testdata" / "jmh"
SETTINGS = Settings(resamples=400)


def _pid(_item: int) -> int:
    return os.getpid()


# Forking is checked in a fresh interpreter: this one may hold threads other tests left, and
# then the pool rightly falls back to threads.
FORKED = """
import os, signal, sys
from rigorbench import parallel

def square(item):
    return item * item

def pid(item):
    return os.getpid()

def die(item):
    if item == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    return item

if sys.argv[1] == "order":
    assert list(parallel.ordered_map(square, list(range(40)), 2)) == [i * i for i in range(40)]
    pids = set(parallel.ordered_map(pid, list(range(20)), 2))
    assert os.getpid() not in pids and 1 <= len(pids) <= 2, pids
    print("ok")
else:
    list(parallel.ordered_map(die, list(range(8)), 2))
"""


def _forked(tmp_path: Path, case: str) -> subprocess.CompletedProcess:
    script = tmp_path / "forked.py"
    script.write_text(FORKED)
    return subprocess.run([sys.executable, str(script), case], capture_output=True, text=True, timeout=120)


def test_workers_for_uses_every_cpu_for_many_series_and_this_process_for_few():
    assert parallel.workers_for(parallel.MIN_SERIES - 1) == 1
    assert parallel.workers_for(parallel.MIN_SERIES) == min(usable_cpus(), parallel.MIN_SERIES)
    assert parallel.workers_for(3, jobs=8) == 3      # never more workers than series
    assert parallel.workers_for(500, jobs=1) == 1


def test_results_come_back_in_order_from_worker_processes(tmp_path):
    done = _forked(tmp_path, "order")
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr


def test_a_process_with_other_threads_runs_the_series_on_threads_instead_of_forking():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        pids = set(parallel.ordered_map(_pid, list(range(10)), 2))
    finally:
        stop.set()
        other.join()
    assert pids == {os.getpid()}


def test_a_worker_that_dies_is_one_clear_error(tmp_path):
    done = _forked(tmp_path, "die")
    assert done.returncode == 1
    assert "RuntimeError: a worker process of 2 died (killed, or out of memory?); try again with fewer --jobs" in done.stderr


@pytest.mark.parametrize("files", [["v1-trial1.json", "v1-trial2.json"], ["v1-trial1.log"]])
def test_analyze_gives_the_same_results_on_any_number_of_processes(files):
    dataset = api.load_results([JMH / f for f in files])
    one = api.render(api.analyze(dataset, SETTINGS, jobs=1), "json")
    assert api.render(api.analyze(dataset, SETTINGS, jobs=2), "json") == one
    assert api.render(api.analyze(dataset, SETTINGS, jobs=3), "json") == one


def test_compare_gives_the_same_results_on_any_number_of_processes():
    base = api.load_results([JMH / "v1-trial1.json", JMH / "v1-trial2.json"])
    head = api.load_results([JMH / "v2-trial1.json", JMH / "v2-trial2.json"])
    one = api.render(api.compare(base, head, SETTINGS, jobs=1), "json")
    assert api.render(api.compare(base, head, SETTINGS, jobs=2), "json") == one


def test_jobs_on_the_command_line():
    files = [str(JMH / "v1-trial1.json"), str(JMH / "v2-trial1.json")]
    outputs = []
    for jobs in ("1", "2"):
        out, err = io.StringIO(), io.StringIO()
        assert cli(["compare", *files, "--resamples", "300", "--format", "json", "--jobs", jobs], out, err) in (0, 1)
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1] and '"comparisons"' in outputs[0]
    err = io.StringIO()
    assert cli(["analyze", files[0], "-j", "0"], io.StringIO(), err) == 2
    assert "--jobs/-j: must be at least 1" in err.getvalue() and "Traceback" not in err.getvalue()


def test_the_report_page_is_the_same_on_any_number_of_processes():
    base = api.load_results([JMH / "v1-trial1.json", JMH / "v1-trial2.json"])
    head = api.load_results([JMH / "v2-trial1.json", JMH / "v2-trial2.json"])

    def summary(page):
        return [(c.case, c.comparison.verdict, [(v.label, v.analysis.mean, v.analysis.median, v.analysis.diagnostics,
                                                 v.values.tolist(), [f.values.tolist() for f in v.forks]) for v in c.versions])
                for c in page.cases]

    one = summary(api.report_page([base, head], SETTINGS, jobs=1))
    assert len(one) == 4 and all(len(views) == 2 for _, _, views in one)
    assert summary(api.report_page([base, head], SETTINGS, jobs=2)) == one


def test_power_gives_the_same_results_on_any_number_of_processes():
    from rigorbench.analysis.settings import PowerOptions

    dataset = api.load_results([JMH / "v1-trial1.json", JMH / "v1-trial2.json"])
    options = PowerOptions(simulations=10, slowdowns=(0.05, 0.5))
    seen = []
    one = api.render(api.power(dataset, Settings(resamples=200), options, jobs=1), "json")
    two = api.render(api.power(dataset, Settings(resamples=200), options, jobs=2,
                               progress=lambda done, total: seen.append((done, total))), "json")
    assert one == two and '"benchmarks"' in one
    assert seen == [(i, 4) for i in range(1, 5)]
