"""``--warmup auto``: each benchmark's warmup from a pilot fork, then one harness invocation per warmup.

Before the first trial, every version runs one pilot fork of every benchmark with a generous
warmup (``--pilot-warmup``, default :data:`PILOT_WARMUP` iterations). The pilot's whole series
goes through :func:`rigorbench.stats.stopping.auto_warmup` (analyze's steady-state detector
plus a margin). A benchmark's warmup is the largest chosen for any of its cases in any
version, so the versions are measured alike. A benchmark whose pilot never settled is
*flagged* (said at once and stored with the run) and warms up for the pilot's
whole length, the most that was observed. The choices are stored with the run before its
first trial, so ``--resume`` uses them without a new pilot.

Each trial then runs one harness invocation per distinct warmup (JMH's ``-wi`` is per run),
with exact includes of the benchmarks that have it, and stores them as one trial.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from rigorbench.analysis.stopping import listed_name
from rigorbench.experiment.options import PILOT_WARMUP
from rigorbench.experiment.progress import Reporter
from rigorbench.files import safe_name
from rigorbench.harness.base import DONE, TIMEOUT, Harness, RunSettings, TrialOutcome
from rigorbench.model import Series, short_name

def pilot_series(series: Series) -> np.ndarray:
    """A fork's whole series in the order it ran: warmup iterations, then measurement ones."""
    t = series.samples
    order = np.lexsort((t.iteration, ~t.warmup))
    return t.value[order]


# Runs a version's pilot fork where the experiment's trials run: (label, settings, work folder).
Pilot = Callable[[str, RunSettings, Path], TrialOutcome]


def run_pilots(pilot: Pilot, labels: Sequence[str], settings: RunSettings, names: Sequence[str], work_root: Path,
               reporter: Reporter, harness: Harness, pilot_warmup: int = PILOT_WARMUP) -> dict:
    """Run every version's pilot fork and choose each benchmark's warmup (the stored form:
    ``{name: {"warmup": n, "reached": bool, "starts": {label: start or None}}}``)."""
    from rigorbench.stats.stopping import auto_warmup

    pilot_settings = replace(settings, forks=1, warmup_iterations=pilot_warmup, include=harness.exact_includes(names, settings.include))
    choices: dict[str, dict] = {name: {"warmup": 0, "reached": True, "starts": {}} for name in names}
    for label in labels:
        reporter.message(f"warmup auto: pilot fork of {label} ({pilot_warmup} warmup + {settings.iterations} iterations per benchmark)")
        work_dir = work_root / f"pilot-{safe_name(label, 40, 'version')}"
        work_dir.mkdir(parents=True, exist_ok=True)
        outcome = pilot(label, pilot_settings, work_dir)
        for series in outcome.series:
            name = listed_name(series.case.name, choices)     # Go's sub-benchmarks count for their benchmark
            if name is None or not series.metric.primary or not len(series.samples):
                continue
            choice = auto_warmup(pilot_series(series))
            mine = choices[name]
            mine["warmup"] = max(mine["warmup"], choice.iterations)
            mine["reached"] = mine["reached"] and choice.reached
            mine["starts"][label] = choice.steady_start if choice.reached else None
        if outcome.status != DONE:
            reporter.message(f"warning: the pilot of {label} {outcome.status}: {outcome.message}")
    for name, choice in choices.items():
        if not choice["starts"]:   # the pilot measured nothing of it: keep the configured warmup
            choice.update(warmup=settings.warmup_iterations, reached=False)
    return choices


def describe(choices: Mapping[str, Mapping], pilot_warmup: int) -> list[str]:
    """One line per benchmark: its warmup, or the flag when its pilot never settled."""
    lines = []
    for name, choice in choices.items():
        short = short_name(name)
        starts = ", ".join(f"{label} {start}" for label, start in choice["starts"].items() if start is not None)
        if not choice["starts"]:
            lines.append(f"warning: {short} measured nothing in its pilot forks (it failed or was not run): it keeps "
                         f"the configured {choice['warmup']} warmup iterations")
        elif choice["reached"]:
            lines.append(f"warmup auto: {short}: {choice['warmup']} warmup iterations (steady from iteration {starts})")
        else:
            lines.append(f"warning: {short} did not reach steady state in its pilot fork (of {pilot_warmup} warmup "
                         f"iterations and the measurement ones): it warms up for {choice['warmup']} iterations, the most "
                         "observed; read its forks with 'rigorbench analyze' before trusting its verdict")
    return lines


def invocations(settings: RunSettings, choices: Mapping[str, Mapping] | None, names: Sequence[str],
                harness: Harness) -> list[RunSettings]:
    """The harness runs of one trial of ``names``: one per distinct chosen warmup (one run
    with ``settings`` when there are no choices), each selecting its benchmarks in ``harness``'s
    pattern syntax."""
    if not choices:
        return [settings]
    groups: dict[int, list[str]] = {}
    for name in names:
        groups.setdefault(int(choices[name]["warmup"]) if name in choices else settings.warmup_iterations, []).append(name)
    return [replace(settings, warmup_iterations=w, include=harness.exact_includes(group, settings.include)) for w, group in sorted(groups.items())]


def merged(outcomes: Sequence[TrialOutcome]) -> TrialOutcome:
    """Several harness runs of one trial as one: every series, the worst status, all failures.

    A run that measured nothing because its benchmarks all failed (say, the only run of a
    benchmark that always fails) adds its failures but does not fail the trial when another
    run measured something, as one run with that benchmark among the others would not."""
    if len(outcomes) == 1:
        return outcomes[0]
    measured = any(o.series for o in outcomes)
    counted = [o for o in outcomes if o.status == TIMEOUT or o.series or not measured]
    ignored = [o for o in outcomes if not any(o is c for c in counted)]
    worst = next((o for o in counted if o.status == TIMEOUT), None) or next((o for o in counted if o.status != DONE), counted[0])
    environment: dict[str, str] = {}
    for outcome in outcomes:
        environment.update(outcome.environment)
    return TrialOutcome(
        status=worst.status,
        series=tuple(s for o in outcomes for s in o.series),
        harness_seconds=sum(o.harness_seconds for o in outcomes),
        environment=environment,
        failures=tuple(f for o in outcomes for f in o.failures)
        + tuple(o.message for o in ignored if not o.failures and o.message),
        output_tail="\n".join(o.output_tail for o in outcomes if o.output_tail)[-20_000:],
        message="; ".join(o.message for o in counted if o.message),
    )
