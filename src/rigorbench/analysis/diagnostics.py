"""Diagnostics of one benchmark's data: figures from ``stats`` turned into advice.

Each check returns ``Diagnostic(code, message, severity, hint)`` values (STYLE.md rule 4);
codes are stable (tests and users filter on them). Sources: steady state and warmup after
Traini et al. (EMSE 2022); variability by level and the advice per level after Laaber et al.
(``shared/reference/004``, section 4.2); GC spikes after Eichelberger et al.; JIT during
timing and plausibility after Sestoft ("Microbenchmarks in Java and C#", sections 4 and 7).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rigorbench.analysis.advice import Words, words
from rigorbench.analysis.dataset import Observations, outliers_removed
from rigorbench.analysis.settings import Settings
from rigorbench.model import Diagnostic, SampleTable
from rigorbench.stats.bootstrap import MIN_EXPANDED_UNITS
from rigorbench.stats.coincidence import coincidence
from rigorbench.stats.grouping import unique_rows
from rigorbench.stats.modality import fork_clusters, modes
from rigorbench.stats.outliers import tukey_fences
from rigorbench.stats.trend import trend
from rigorbench.units import is_time_metric, nanoseconds_per_op

if TYPE_CHECKING:
    from rigorbench.analysis.analyze import BenchmarkAnalysis

WIDE_RCIW = 0.10            # a CI of the mean wider than +-5%: too wide to see small changes
FORK_SPREAD = 10.0          # Sestoft section 7: scores 10x apart between forks are not one thing
MIN_MODE_VALUES = 10
LONGER_THAN_NEEDED = 5      # warmup iterations to spare before we suggest cutting it
DEFAULT_CYCLE_NS = 1.0      # "one clock cycle" when the CPU's clock was not recorded

def level_advice(level: str, harness: str) -> str:
    """What to do when most variance is at ``level``, in ``harness``'s words."""
    said = words(harness)
    return {
        "iteration": f"variance is inside each fork's iteration series: {said.more_iterations}",
        "fork": "variance is between forks (each process gets its own memory layout and address randomization, "
                f"and a JIT its own decisions): {said.more_forks}",
        "trial": "variance is between trials (the machine changes over time): run more trials ('rigorbench run --trials')",
        "instance": "variance is between machines: run on more instances and keep them in the comparison",
    }[level]


def diagnose(a: "BenchmarkAnalysis", table: SampleTable, obs: Observations,
             events: dict[str, SampleTable | None], settings: Settings, cycle_ns: float | None = None) -> list[Diagnostic]:
    found: list[Diagnostic] = plausibility(a, obs, cycle_ns)
    for check in (steady_state, variability, multimodality, outliers, drift):
        found.extend(check(a, obs))
    found.extend(gc_and_jit(a, table, events))
    found.extend(sample_size(a, obs))
    return found


def _fmt(value: float, unit: str = "") -> str:
    return f"{value:.4g} {unit}".strip()


def clock_cycle_ns(environments) -> float | None:
    """One clock cycle in ns of the fastest machine the data was measured on (the recorded
    ``cpu_max_mhz``), or None when no environment says."""
    cycles = []
    for environment in environments:
        try:
            mhz = float(environment.get("cpu_max_mhz", ""))
        except ValueError:
            continue
        if 100 <= mhz <= 10_000:
            cycles.append(1000.0 / mhz)
    return min(cycles) if cycles else None


def plausibility(a: "BenchmarkAnalysis", obs: Observations, cycle_ns: float | None = None) -> list[Diagnostic]:
    """Faster than one clock cycle per operation: nothing (or a constant) was computed.
    The cycle is the recorded CPU's (``clock_cycle_ns``); without one, 1 ns (a 1 GHz clock,
    slower than any machine JMH runs on, so the check errs towards saying less)."""
    found = []
    ns = nanoseconds_per_op(a.mean.estimate, a.metric.unit)
    cycle = cycle_ns if cycle_ns is not None else DEFAULT_CYCLE_NS
    if ns is not None and ns < cycle:
        clock = (f"one clock cycle of this {1 / cycle_ns:.2g} GHz CPU is {cycle_ns:.2f} ns" if cycle_ns is not None
                 else "below 1 ns, about one clock cycle or less (the CPU's clock was not recorded)")
        found.append(Diagnostic(
            "implausibly_fast", f"{ns:.2f} ns per operation: {clock}; the work was likely removed",
            "error", "return the result or pass it to Blackhole.consume (see 'rigorbench lint', rule RETU)",
        ))
    means = _fork_means(obs)
    if len(means) >= 2 and means.min() > 0 and means.max() / means.min() > FORK_SPREAD:
        found.append(Diagnostic(
            "fork_spread", f"fork means differ {means.max() / means.min():.0f}x ({_fmt(means.min())} to {_fmt(means.max())} {a.metric.unit})",
            "error", "forks this far apart measure different things (different code paths, OSR, a failed fork): inspect each fork",
        ))
    distinct = len(np.unique(obs.values))
    if is_time_metric(a.metric.unit) and len(obs.values) >= 10 and distinct <= 3:
        found.append(Diagnostic(
            "timer_resolution", f"only {distinct} distinct values in {len(obs.values)} iterations: the scores are quantized",
            "warning", "each measurement is too short for the timer: do more work per operation or use longer iterations",
        ))
    return found


def steady_state(a: "BenchmarkAnalysis", obs: Observations) -> list[Diagnostic]:
    report = a.steady
    if not report.assessed:
        return [Diagnostic(
            "steady_state_unchecked", "forks are too short to check warmup and steady state (fewer than 20 iterations)",
            "info", f"to see where steady state starts, run 50 or more iterations per fork once: {words(a.case.harness).more_iterations}",
        )]
    n = len(report.forks)
    never = sum(not s.reached for s in report.states)
    found = []
    if report.verdict == "none":
        found.append(Diagnostic(
            "not_steady", f"no fork reaches steady state ({n} of {n} forks keep changing)", "error",
            "the score keeps changing; look for growing state (caches, collections, leaks) and do not trust the mean",
        ))
    elif report.verdict == "inconsistent":
        found.append(Diagnostic(
            "inconsistent_steady_state", f"{never} of {n} forks never reach steady state", "warning",
            f"some forks settle and others do not: {words(a.case.harness).more_forks} and look at the iteration series of each",
        ))
    found.extend(_warmup(report, words(a.case.harness)))
    return found


def _warmup(report, said: Words) -> list[Diagnostic]:
    pairs = [(f, s) for f, s in zip(report.forks, report.states) if s.reached and s.start is not None]
    late = [(f, s) for f, s in pairs if s.start > f.warmup]
    if late:
        start = max(s.start for _, s in late)
        warmup = max(f.warmup for f, _ in late)
        unsteady = sum(s.start - f.warmup for f, s in late)
        measured = sum(len(f.measurement) for f in report.forks)
        ends = f"warmup ends at {warmup}" if warmup else "no warmup iterations"
        return [Diagnostic(
            "warmup_too_short",
            f"warmup too short in {len(late)} of {len(report.forks)} forks (steady from iteration {start}, "
            f"{ends}); {unsteady} of {measured} measurement iterations were taken before steady state",
            "warning", f"use at least {start} warmup iterations, or --steady-only to leave the unsteady ones out",
        )]
    if pairs and len(pairs) == len(report.forks):
        spare = min(f.warmup - s.start for f, s in pairs)
        if spare >= max(LONGER_THAN_NEEDED, 0.2 * max(f.warmup for f, _ in pairs)):
            latest = max(s.start for _, s in pairs)
            return [Diagnostic(
                "warmup_longer_than_needed",
                f"warmup longer than needed by {spare} iterations (every fork is steady by iteration {latest})",
                "info", f"about {latest + LONGER_THAN_NEEDED} warmup iterations would do; spend the time saved on "
                f"forks: {said.more_forks}",
            )]
    return []


def variability(a: "BenchmarkAnalysis", obs: Observations) -> list[Diagnostic]:
    v = a.variability
    found = []
    if v is not None and len(v.components) >= 2:
        share = v.components[v.dominant]
        found.append(Diagnostic(
            "dominant_variance", f"{share:.0%} of the variance is at the {v.dominant} level", "info",
            level_advice(v.dominant, a.case.harness),
        ))
    if a.rciw > WIDE_RCIW:
        advice = level_advice(v.dominant, a.case.harness) if v is not None and v.components else "collect more data"
        found.append(Diagnostic(
            "wide_ci", f"the {a.mean.confidence:.0%} CI of the mean is {a.rciw:.0%} of the mean wide", "warning",
            f"changes smaller than about {a.rciw / 2:.0%} cannot be seen with this data; {advice}",
        ))
    return found


def multimodality(a: "BenchmarkAnalysis", obs: Observations) -> list[Diagnostic]:
    found, said = [], words(a.case.harness)
    forks = _fork_values(obs)
    checked = [(values, modes(values)) for values in forks if len(values) >= MIN_MODE_VALUES]
    split = [values for values, m in checked if m.multimodal]
    if split:
        # The modes of the affected forks together say best where the states lie and how often.
        pooled = modes(np.concatenate(split))
        top = pooled if pooled.multimodal else next(m for _, m in checked if m.multimodal)
        parts = ", ".join(f"{share:.0%} near {_fmt(center)}" for center, share in zip(top.centers, top.shares))
        kind = "bimodal" if len(top.centers) == 2 else f"{len(top.centers)} modes"
        found.append(Diagnostic(
            "multimodal", f"{kind} within {len(split)} of {len(forks)} forks: {parts} {a.metric.unit}", "warning",
            "the mean of two states describes neither: look for GC, JIT deoptimization or data-dependent paths",
        ))
    means = _fork_means(obs)
    if len(means) >= 4:
        clusters = fork_clusters(means)
        if clusters.clustered:
            parts = ", ".join(f"{len(g)} near {_fmt(c)}" for g, c in zip(clusters.groups, clusters.centers))
            found.append(Diagnostic(
                "fork_clusters", f"fork means fall into {len(clusters.groups)} groups: {parts} {a.metric.unit}", "warning",
                f"{said.process} settles into one of several states (code layout, JIT decisions, hardware): "
                f"{said.more_forks} so that the mean covers the mix",
            ))
    return found


def outliers(a: "BenchmarkAnalysis", obs: Observations) -> list[Diagnostic]:
    removed = outliers_removed(obs)
    found = [removed] if removed else []
    fences = [tukey_fences(values) for values in _fork_values(obs) if len(values) >= 4]
    severe = sum(f.severe for f in fences)
    if severe:
        mild = sum(f.mild for f in fences)
        forks = sum(f.severe > 0 for f in fences)
        found.append(Diagnostic(
            "tukey_outliers", f"{severe} severe and {mild} mild outliers (Tukey fences) in {forks} of {len(fences)} forks",
            "info", "kept in the analysis; if they come with GC or compilation see those diagnostics",
        ))
    return found


def drift(a: "BenchmarkAnalysis", obs: Observations) -> list[Diagnostic]:
    trends = [trend(values) for values in _fork_values(obs) if len(values) >= MIN_MODE_VALUES]
    for direction in ("up", "down"):
        same = [t for t in trends if t.significant and t.direction == direction]
        if trends and len(same) * 2 >= len(trends) and same:
            drift_pct = float(np.median([t.relative_drift for t in same]))
            what = "time" if not a.metric.higher_is_better else "throughput"
            verb = "rises" if direction == "up" else "falls"
            return [Diagnostic(
                "trend", f"{what} {verb} during measurement in {len(same)} of {len(trends)} forks ({drift_pct:+.1%} over a fork)",
                "warning", "still warming up (lengthen warmup) or accumulating state (check allocation and GC)",
            )]
    return []


def sample_size(a: "BenchmarkAnalysis", obs: Observations) -> list[Diagnostic]:
    if a.forks == 1:
        return [Diagnostic(
            "single_fork", "all values come from one fork", "warning",
            f"run-to-run variance is not captured: {words(a.case.harness).more_forks}, at least 2, or several trials",
        )]
    units, what = (a.trials, "trials") if a.trials > 1 else (a.forks, "forks")
    if units < MIN_EXPANDED_UNITS:
        return [Diagnostic(
            "few_units", f"the CIs come from {units} {what}: no interval from so few is trustworthy "
            "(shown without the small-sample correction, which would make it several times wider)",
            "warning", f"run at least {MIN_EXPANDED_UNITS} trials, 5 or more for a 99% interval that holds",
        )]
    return []


def gc_and_jit(a: "BenchmarkAnalysis", table: SampleTable, events: dict[str, SampleTable | None]) -> list[Diagnostic]:
    found = []
    for name in ("gc.count", "gc.time"):
        aligned = _aligned(table, events.get(name))
        if aligned is None:
            continue
        values, counts = aligned
        result = coincidence(values, counts, higher_is_slower=not a.metric.higher_is_better)
        if result.associated:
            found.append(Diagnostic(
                "gc_spikes",
                f"slow iterations coincide with GC: {result.share_slow_with_events:.0%} of the slowest iterations had a GC, "
                f"{result.share_other_with_events:.0%} of the others; iterations with GC are {abs(result.slowdown - 1):.0%} "
                f"{'slower' if result.slowdown > 1 else 'faster'} (p = {result.p_value:.2g})",
                "warning", "GC is part of what is measured: report it, or reduce allocation / size the heap (-Xmx, -Xmn)",
            ))
            break
    # compiler.time.profiled is the compile time within each iteration (JMH -prof comp);
    # compiler.time.total is cumulative since the JVM started, so it says nothing per iteration.
    aligned = _aligned(table, events.get("compiler.time.profiled"))
    if aligned is not None and (busy := int((aligned[1] > 0).sum())):
        values, compile_ms = aligned
        result = coincidence(values, compile_ms, higher_is_slower=not a.metric.higher_is_better)
        found.append(_jit_diagnostic(a, busy, len(values), float(compile_ms.sum()), result))
    return found


def _jit_diagnostic(a: "BenchmarkAnalysis", busy: int, iterations: int, total_ms: float, result) -> Diagnostic:
    """JIT activity during measurement, said in agreement with the steady-state check: only
    slower iterations with compilation mean the warmup is not over, and when the series is
    steady they are a few slow iterations, not a level that is still changing."""
    what = f"JIT compilation in {busy} of {iterations} measurement iterations ({_fmt(total_ms)} ms)"
    if not result.associated:
        return Diagnostic(
            "jit_during_measurement", f"{what}; those iterations are not slower than the others", "info",
            "the compiler is still busy (normal for large code), but it does not show in the scores",
        )
    slower = f"; those iterations are {abs(result.slowdown - 1):.0%} slower"
    if a.steady.verdict == "steady":
        return Diagnostic(
            "jit_during_measurement", f"{what}{slower}, although the series as a whole is steady", "warning",
            "a few measurement iterations still pay for compilation: a longer warmup leaves them out (Sestoft's HotSpot rule 2)",
        )
    return Diagnostic(
        "jit_during_measurement", f"{what}{slower}", "warning",
        "warmup is not over when measurement starts: lengthen warmup (Sestoft's HotSpot rule 2)",
    )


def _aligned(table: SampleTable, events: SampleTable | None) -> tuple[np.ndarray, np.ndarray] | None:
    """Scores and event values of the measurement iterations both tables have."""
    if events is None:
        return None
    scores, marks = table.iteration_means().measurement(), events.measurement()
    key = lambda t: list(zip(t.instance, t.trial, t.fork, t.iteration))  # noqa: E731
    lookup = dict(zip(key(marks), marks.value))
    pairs = [(v, lookup[k]) for k, v in zip(key(scores), scores.value) if k in lookup]
    if len(pairs) < MIN_MODE_VALUES:
        return None
    values, counts = map(np.asarray, zip(*pairs))
    return values.astype(float), counts.astype(float)


def _fork_values(obs: Observations) -> list[np.ndarray]:
    """Each fork's values in their order, forks ordered by (instance, trial, fork)."""
    if not len(obs.values):
        return []
    _, inverse = unique_rows(np.stack([np.asarray(level, dtype=np.int64) for level in obs.levels], axis=1))
    order = np.argsort(inverse, kind="stable")
    bounds = np.flatnonzero(np.diff(inverse[order])) + 1
    return np.split(obs.values[order], bounds)


def _fork_means(obs: Observations) -> np.ndarray:
    return np.array([values.mean() for values in _fork_values(obs)])
