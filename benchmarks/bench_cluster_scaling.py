"""Benchmark: ``--cluster`` scheduling overhead and scaling with the number of instances (issue 20,
"simulated large run").

The same trial-based A/B (``--trials`` trials x 2 versions over the whole experiment, 100 by
default) runs on 1, 2, 5, 10, 25 and 50 instances, through the real submitting side: the
``Dispatcher`` of ``cluster/dispatch.py`` (via ``execute_on_cluster``: bundles shipped and
scattered, the instances' environment checked, one trial in flight per instance), a real Dask
``LocalCluster`` and a real SQLite results store (``ResultStore`` in a temporary directory),
one per instance count. Only the machines are simulated: the instances are single-threaded
Dask workers in this process, and the harness is ``replay_cluster.ReplayHarness``, which
sleeps ``--sleep`` seconds per trial of a version (the GIL is free, so the workers' trials
overlap as on separate machines) and returns a trial JMH really measured
(``tests/testdata/jmh``), so the store writes real series.

The named references, measured in the same run: the harness's own time (the sleeps, as the
harness reports them) and the 1-instance run. Reported per instance count N:

* wall / wall(1 instance), next to the ideal 1/N, and the efficiency wall(1) / (N x wall(N));
* the scheduling overhead per trial: (wall - harness time / N) / (trials per instance), the
  time the dispatcher, Dask and the store add on an instance's critical path per trial (both
  versions), in ms and as a share of the trial's harness time.

* the CPU time per trial of the submitting thread (dispatcher, result fetching, store writes:
  what the submitting machine spends per trial wherever the workers are) and of the whole
  process (adding the Dask scheduler and the 50 workers' event loop, which on a real cluster
  run on other machines).

A last row runs with ``--sleep 0`` on the most instances: the rate at which the dispatcher
hands out and stores trials when they take no time (its capacity), from which the script
derives the shortest trial that many instances can run without the dispatcher becoming the
bottleneck.

The wall time is the dispatcher's loop (``ExperimentResult.wall_seconds``): connecting,
shipping and the environment check happen once per run, before it. Scheduler, workers and
dispatcher share this machine's CPUs and one Dask event loop, and the load average printed
with the table says how much else ran: the overhead measured here is an upper bound for
workers on separate machines (where the network is added instead). A warm-up run (not
reported) pays the imports first.

Run: ``python benchmarks/bench_cluster_scaling.py [--trials 100] [--sleep 0.3] [--instances 1,2,5,10,25,50]
[--rounds 1]`` (about 3 minutes a round; with several rounds, each instance count's median run
is reported, and every other round runs the counts in reverse order, against drift). Needs the cluster extra (``pip install 'rigorbench[cluster]'``).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from replay_cluster import LABELS, ReplayHarness, recorded_trials, registered, replay_run, threads_cluster  # noqa: E402

from rigorbench.experiment.progress import PlainReporter  # noqa: E402
from rigorbench.store import ResultStore  # noqa: E402

INSTANCES = (1, 2, 5, 10, 25, 50)


@dataclass(frozen=True)
class Measured:
    instances: int
    trials_per_instance: int
    sleep_s: float
    wall_s: float
    harness_s: float
    used: int                 # instances that ran trials
    dispatcher_cpu_s: float   # CPU time of the submitting thread (dispatcher and store writes)
    process_cpu_s: float      # of the whole process: also the Dask scheduler and the workers' threads

    @property
    def overhead_s_per_trial(self) -> float:
        return (self.wall_s - self.harness_s / self.instances) / self.trials_per_instance

    @property
    def harness_s_per_trial(self) -> float:
        return self.harness_s / (self.instances * self.trials_per_instance)


def measure(recorded, instances: int, trials: int, sleep_s: float, scratch: Path) -> Measured:
    """One experiment of ``trials`` trials on ``instances`` fresh workers, with a fresh store."""
    here = scratch / f"{instances}-instances-{trials}-trials-sleep{sleep_s}"
    os.environ["RIGORBENCH_WORKER_DIR"] = str(here / "worker")
    with registered(ReplayHarness(sleep_s, recorded)), threads_cluster(instances) as session, \
            ResultStore.open(here / "results.db") as store:
        thread_cpu, process_cpu = time.thread_time(), time.process_time()
        result = replay_run(session, store, here / "versions", trials // instances, PlainReporter(io.StringIO()))
        thread_cpu, process_cpu = time.thread_time() - thread_cpu, time.process_time() - process_cpu
        stored = len(store.finished(result.run_id))
        used = len({e.environment["instance"] for e in store.executions(result.run_id)})
    if result.failed or stored != trials * len(LABELS):
        raise SystemExit(f"{instances} instances: {stored} of {trials * len(LABELS)} trials stored, {result.failed} failed")
    return Measured(instances, trials // instances, sleep_s, result.wall_seconds, result.harness_seconds, used,
                    thread_cpu, process_cpu)


def print_table(rows: list[Measured], reference: Measured, trials: int) -> None:
    print(f"{'instances':>9} {'trials/inst':>11} {'sleep s':>7} {'wall s':>7} {'harness s':>9} {'wall/wall(1)':>12} "
          f"{'ideal 1/N':>9} {'efficiency':>10} {'overhead ms/trial':>17} {'of trial':>8} {'CPU ms/trial: dispatcher':>24} {'process':>7}")
    for row in rows:
        scaling = (f"{row.wall_s / reference.wall_s:12.3f} {1 / row.instances:9.3f} "
                   f"{reference.wall_s / (row.instances * row.wall_s):10.2f}") if row.sleep_s == reference.sleep_s else f"{'':>12} {'':>9} {'':>10}"
        share = f"{row.overhead_s_per_trial / row.harness_s_per_trial:8.1%}" if row.sleep_s > 0 else f"{'-':>8}"
        print(f"{row.instances:9d} {row.trials_per_instance:11d} {row.sleep_s:7.2f} {row.wall_s:7.1f} {row.harness_s:9.1f} "
              f"{scaling} {row.overhead_s_per_trial * 1000:17.1f} {share} {row.dispatcher_cpu_s / trials * 1000:24.1f} "
              f"{row.process_cpu_s / trials * 1000:7.1f}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100, help="trials over the whole experiment (default 100)")
    parser.add_argument("--sleep", type=float, default=0.3, help="seconds the harness sleeps per trial of a version")
    parser.add_argument("--instances", default=",".join(map(str, INSTANCES)), help="instance counts, comma-separated")
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure every instance count this often, in rounds (each round in the other order); "
                             "the run with the median wall time is reported")
    args = parser.parse_args(argv)
    counts = sorted({int(n) for n in args.instances.split(",")})
    if counts[0] != 1 or any(args.trials % n for n in counts):
        parser.error(f"--instances must start at 1 and divide --trials {args.trials}")
    recorded = {label: recorded_trials(label) for label in LABELS}
    with tempfile.TemporaryDirectory(prefix="rigorbench-cluster-scaling-") as scratch:
        measure(recorded, 1, 2, 0.0, Path(scratch) / "warm-up")    # imports and first-use costs, not reported
        runs, load = {}, os.getloadavg()[0]
        for round_ in range(args.rounds):
            plan = [(n, args.sleep) for n in counts] + [(counts[-1], 0.0)]
            for instances, sleep_s in plan if round_ % 2 == 0 else reversed(plan):
                row = measure(recorded, instances, args.trials, sleep_s, Path(scratch) / f"round{round_}")
                runs.setdefault((instances, sleep_s), []).append(row)
                print(f"  round {round_ + 1}: {instances} instances, sleep {sleep_s} s: {row.wall_s:.1f} s, "
                      f"trials ran on {row.used}", flush=True)
        rows = [sorted(found, key=lambda row: row.wall_s)[len(found) // 2] for found in runs.values()]
    print(f"\n{args.trials} trials x {len(LABELS)} versions, trial-based, harness sleeping {args.sleep} s per trial of a version "
          f"(load average {load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs):")
    print_table(rows, rows[0], args.trials)
    flat_out = rows[-1]
    per_trial = flat_out.wall_s / args.trials
    print(f"\ncapacity: with trials that take no time, {flat_out.instances} instances get {args.trials / flat_out.wall_s:.0f} trials/s "
          f"through the dispatcher ({per_trial * 1000:.0f} ms per trial); {flat_out.instances} instances keep it less than half busy "
          f"when a trial (all its versions) takes {2 * flat_out.instances * per_trial:.1f} s or longer "
          "(with the default settings a JMH trial runs 3 forks x 15 s per benchmark and version)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
