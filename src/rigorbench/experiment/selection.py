"""Which benchmarks an experiment runs: those every version has.

Two commits of a real project rarely have the same benchmarks: one was added, renamed or
removed. A benchmark only some versions have cannot be compared, so it is reported and not
run (running it costs time and its results would be dropped). The selection is made from
each built version's own listing (JMH ``-lp``) before anything long starts, and narrowed
with exact-name include patterns. Parameter values that differ between versions are
reported too: those cases have no counterpart and are listed as unmatched by the
comparison.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from rigorbench.harness.base import ListedBenchmark, RunSettings
from rigorbench.units import parse_duration


@dataclass(frozen=True)
class Selection:
    labels: tuple[str, ...]
    listings: Mapping[str, tuple[ListedBenchmark, ...]]
    common: tuple[str, ...]                     # in every version, sorted
    partial: Mapping[str, tuple[str, ...]]      # benchmark -> the versions that have it
    param_differences: Mapping[str, str]        # benchmark -> "size: {..} in v1, {..} in v2"
    params: Mapping[str, tuple[tuple[str, tuple[str, ...]], ...]]  # benchmark -> its @Params (first version's)


def select_benchmarks(listings: Mapping[str, Sequence[ListedBenchmark]]) -> Selection:
    labels = tuple(listings)
    by_label = {label: {b.name: b for b in listings[label]} for label in labels}
    names = sorted({name for found in by_label.values() for name in found})
    common = tuple(n for n in names if all(n in by_label[label] for label in labels))
    partial = {n: tuple(label for label in labels if n in by_label[label]) for n in names if n not in common}
    differences = {}
    for name in common:
        params = [dict(by_label[label][name].params) for label in labels]
        differing = sorted({k for p in params for k in p if any(q.get(k) != p.get(k) for q in params)})
        if differing:
            differences[name] = "; ".join(
                f"{key}: " + ", ".join(f"{{{', '.join(p.get(key, ()))}}} in {label}" for label, p in zip(labels, params))
                for key in differing
            )
    params = {}
    for label in reversed(labels):  # the first version that has a benchmark names its params
        params.update({b.name: b.params for b in listings[label]})
    return Selection(labels, {k: tuple(v) for k, v in listings.items()}, common, partial, differences, params)


def cases(params: Sequence[tuple[str, tuple[str, ...]]], settings: RunSettings) -> int:
    """Parameter combinations JMH runs for one benchmark (``-p`` overrides the defaults)."""
    overrides = {name: values.split(",") for name, values in settings.params}
    return math.prod(len(overrides.get(name, values)) or 1 for name, values in params)


def _seconds(time_value: str) -> float:
    """An iteration's time; a fixed count (``100x``) has none: it counts as 1 s, the default."""
    seconds = parse_duration(time_value)
    return 1.0 if seconds is None else seconds


# A forked JVM's start, JIT warm-up of JMH itself and teardown, as seen on the example.
FORK_OVERHEAD_S = 1.0


def estimated_seconds(selection: Selection, settings: RunSettings, trials: int,
                      warmups: Mapping[str, Mapping] | None = None) -> float:
    """How long ``trials`` trials of ``selection`` take, every version, from the iteration
    times (an estimate); ``warmups``: the warmup iterations ``--warmup auto`` chose per
    benchmark (its stored form), in place of the configured ones."""
    total = 0.0
    for name in selection.common:
        warmup = warmups[name]["warmup"] if warmups and name in warmups else settings.warmup_iterations
        per_fork = (warmup * _seconds(settings.warmup_time)
                    + settings.iterations * _seconds(settings.iteration_time) + FORK_OVERHEAD_S)
        total += cases(selection.params[name], settings) * per_fork
    return total * settings.forks * trials * len(selection.labels)


def cases_in(selection: Selection, settings: RunSettings) -> int:
    """Benchmark cases (parameter combinations) of the benchmarks every version has."""
    return sum(cases(selection.params[name], settings) for name in selection.common)
