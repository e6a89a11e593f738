"""Lint findings graded by measured time per operation (``lint --store``, and ``ab``/``run``).

A static rule says what *may* go wrong; a stored run says how long each call really took,
which decides two of the rules:

- **INVO** (a ``Level.Invocation`` fixture). JMH must read the clock around every call to keep
  the fixture out of the score; its ``Level.Invocation`` Javadoc calls the level usable only
  for benchmarks that take more than a millisecond per call. Measured under
  :data:`INVOCATION_BOUND_NS` (1 ms) the finding is **confirmed** (kept, with the time). At
  :data:`CLEAR_FACTOR` (10) times that bound or more it is **cleared** to ``info``: the bound
  is the least duration JMH calls usable, not a margin, and a finding cleared here is hidden
  by default, so it must stay right when the same code runs on a machine or JIT ten times
  faster, or in a smaller ``@Param`` case than the run measured -- an order of magnitude also
  dwarfs the uncertainty of a mean of iterations (a few percent). In between it is kept and
  says so.
  A confirmed finding is at least a ``warning``, also where the static cost evidence had made
  it ``info`` (a sort of a small array): the data outranks the guess.
- **RETU, VOID, FINAL, GO-RESULT** (the compiler may remove or fold the measured work). A
  mean under :data:`REMOVED_WORK_CYCLES` (3) clock cycles per operation of the measuring CPU
  (1 ns, 3 cycles at 3 GHz, when the run did not record its clock) is the harness's own loop
  and little else: JMH's empty benchmark costs about one cycle a call (JMHSample_08's baseline,
  0.3 ns), while a value that escapes through a return or a Blackhole costs several more (the
  consume's compare and branch). Such a finding is **confirmed** and raised to ``error``.
  ``analyze``'s ``implausibly_fast`` diagnostic uses one cycle, as it judges any benchmark;
  here lint has already found code whose work may be removed, so a time near the empty loop's
  is enough. A slower measurement does not show that nothing was removed: the finding is kept.

Matching: a finding names ``Class.method`` (or, for INVO, the fixture's users as
``pkg.Class.method``); stored names are fully qualified with parameters. A stored case
matches when its class and method are the same (``pkg.Class.method`` exactly, when the finding
gives the package). When classes of one name in several packages match, only those whose
package is the folder of the finding's file are kept; when none is, the finding stays as it
was (no guess). Several parameter sets give a range of times: a decision holds only for the
whole range. A finding with no matching case stays as it was.

Pure: findings and measured times in, findings out; :mod:`rigorbench.analysis.measured`
reads the times from a store.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from rigorbench.model import Finding, Measured, Severity, short_name
from rigorbench.units import time_unit_for, unit_factor

INVOCATION_BOUND_NS = 1e6     # JMH's Level.Invocation Javadoc: usable above 1 ms per call
CLEAR_FACTOR = 10             # an order of magnitude above the bound clears (module docstring)
REMOVED_WORK_CYCLES = 3       # clock cycles per operation under which the work was removed
NO_CLOCK_BOUND_NS = 1.0       # that bound when the run did not record the clock (3 cycles at 3 GHz)
REMOVED_WORK_RULES = frozenset({"RETU", "VOID", "FINAL", "GO-RESULT"})
GRADED_RULES = REMOVED_WORK_RULES | {"INVO"}


@dataclass(frozen=True)
class CaseTime:
    """One stored benchmark case's mean time per operation, in ns."""

    name: str
    params: tuple[tuple[str, str], ...]
    ns_per_op: float


@dataclass(frozen=True)
class Measurements:
    """The measured cases of one version of one stored run (``source``: "run 3, version v2")
    and the clock cycle of the CPU it ran on, when recorded."""

    cases: tuple[CaseTime, ...]
    source: str
    cycle_ns: float | None = None


def graded(findings: Iterable[Finding], measurements: Measurements) -> tuple[Finding, ...]:
    """``findings`` in order, those of :data:`GRADED_RULES` whose benchmarks were measured with
    their ``measured`` set (and INVO cleared to ``info`` or removed work raised to ``error``)."""
    return tuple(_graded(f, measurements) for f in findings)


def wanted_names(findings: Iterable[Finding]) -> set[str]:
    """The ``Class.method`` names a grading of ``findings`` reads (to load only those cases)."""
    names = set()
    for f in findings:
        if f.rule in GRADED_RULES:
            names.update(short_name(t) for t in _targets(f))
    return names


def _targets(f: Finding) -> tuple[str, ...]:
    return f.concerns or ((f.benchmark,) if f.benchmark else ())


def matching_cases(finding: Finding, cases: Sequence[CaseTime]) -> list[CaseTime]:
    """The stored cases of the benchmarks ``finding`` is about (see the module docstring)."""
    found: list[CaseTime] = []
    for target in _targets(finding):
        hits = [c for c in cases if _base_name(c.name) == target
                or ("." in target and target.count(".") < 2 and short_name(_base_name(c.name)) == target)]
        if len({_package_of(c.name, target) for c in hits}) > 1:
            folder = "/" + finding.path.replace("\\", "/").rpartition("/")[0] + "/"
            hits = [c for c in hits if f"/{_package_of(c.name, target).replace('.', '/')}/" in folder]
            if len({_package_of(c.name, target) for c in hits}) != 1:
                continue            # classes of this name in several packages: no guess
        found.extend(h for h in hits if h not in found)
    return found


def _base_name(stored: str) -> str:
    """A stored name without a Go sub-benchmark's ``/...`` and with a nested class's ``$`` as
    ``.`` (should a harness spell it so)."""
    return stored.split("/", 1)[0].replace("$", ".")


def _package_of(stored: str, target: str) -> str:
    return _base_name(stored)[:-len(target)].rstrip(".")


def _graded(f: Finding, measurements: Measurements) -> Finding:
    if f.rule not in GRADED_RULES:
        return f
    cases = matching_cases(f, measurements.cases)
    if not cases:
        return f
    times = sorted(c.ns_per_op for c in cases)
    low, high, middle = times[0], times[-1], statistics.median(times)
    if f.rule == "INVO":
        decision, severity, reason = _invocation_decision(f.severity, low, high)
    else:
        decision, severity, reason = _removed_work_decision(f.severity, low, high, measurements.cycle_ns)
    params: dict[str, list[str]] = {}
    for case in cases:
        for key, value in case.params:
            params.setdefault(key, [])
            if value not in params[key]:
                params[key].append(value)
    said = f"{_time_range(low, high)} in {measurements.source}" + (
        f" ({len(cases)} cases: {_params_text(params)})" if len(cases) > 1 else "")
    outcome = {"confirmed": "confirmed", "cleared": "cleared to info", "kept": "kept"}[decision]
    if severity > f.severity:
        outcome = f"confirmed, raised to {severity}"
    measured = Measured(decision, middle, low, high, len(cases), tuple(dict.fromkeys(c.name for c in cases)),
                        tuple((k, tuple(v)) for k, v in params.items()), measurements.source,
                        f"{said}: {reason}; {outcome}")
    return replace(f, severity=severity, measured=measured)


def _invocation_decision(severity: Severity, low: float, high: float) -> tuple[str, Severity, str]:
    bound, clear = INVOCATION_BOUND_NS, INVOCATION_BOUND_NS * CLEAR_FACTOR
    if high < bound:
        return ("confirmed", max(severity, Severity.WARNING), "under 1 ms per call, where JMH's timestamps "
                "around every call matter")
    if low >= clear:
        return ("cleared", Severity.INFO, f"at least {CLEAR_FACTOR}x JMH's 1 ms bound per call, where the "
                "timestamps are negligible")
    if low < bound:
        return "kept", severity, "under 1 ms per call in some cases, over it in others"
    return "kept", severity, (f"over 1 ms per call but not {CLEAR_FACTOR}x over, so the timestamps may "
                              "still matter on a faster machine or input")


def _removed_work_decision(severity: Severity, low: float, high: float,
                           cycle_ns: float | None) -> tuple[str, Severity, str]:
    bound = REMOVED_WORK_CYCLES * cycle_ns if cycle_ns is not None else NO_CLOCK_BOUND_NS
    clock = (f"{REMOVED_WORK_CYCLES} clock cycles of the measuring CPU ({_time(bound)})" if cycle_ns is not None
             else f"1 ns (about {REMOVED_WORK_CYCLES} clock cycles)")
    if high < bound:
        return ("confirmed", max(severity, Severity.ERROR), f"under {clock} per operation: the work was "
                "likely removed")
    if low < bound:
        return "kept", severity, f"under {clock} per operation in some cases only"
    return "kept", severity, "a plausible time for real work, which does not show that none was removed"


def _time(ns: float) -> str:
    unit = time_unit_for(ns)
    return f"{ns * unit_factor('ns/op', unit):.3g} {unit}"


def _time_range(low: float, high: float) -> str:
    if low == high:
        return _time(low)
    unit = time_unit_for(high)
    factor = unit_factor("ns/op", unit)
    return f"{low * factor:.3g} to {high * factor:.3g} {unit}"


def _params_text(params: dict[str, list[str]]) -> str:
    return ", ".join(f"{k}={','.join(v)}" for k, v in params.items()) or "several benchmarks"
