"""Renderers of ``rigorbench bisect``: the probes in the order run, then the culprit (or the
range of candidates that is left, or why there was nothing to bisect).

JSON: after the common head, ``find`` (``slower``, or ``faster`` for ``--find faster``),
``good`` and ``bad`` (``{commit, subject}``), ``commits`` (how many between them), ``looks``
(trial counts a probe is decided at), ``confidence_per_look``, ``status`` (``found``,
``inconclusive``, ``not_slower`` (``not_faster`` with ``--find faster``),
``premise_inconclusive``), ``probes`` (``[{role, commit, subject, decision, trials, run_id,
seconds, reason, cases: [{benchmark, params, metric, unit, verdict, decision, ratio:
{estimate, ci_low, ci_high}, change_pct}]}]``; a decision is ``slower``, ``not_slower``
(``faster``, ``not_faster`` with ``--find faster``), ``inconclusive`` or ``untestable``),
``culprit`` and ``parent`` (``{commit, subject}`` or null), and ``candidates`` (the commits
that may still be the first slower (faster) one, oldest first).
"""

from __future__ import annotations

import json

from rigorbench.analysis.bisect import Bisection, Commit, Decision, Direction, Probe, Status, confidence_per_look
from rigorbench.model import short_name
from rigorbench.report.compare import change_cell
from rigorbench.report.documents import document_head, json_number
from rigorbench.report.table import Table, layout_text
from rigorbench.terminal import printable, printable_lines

HEADERS = ["probe", "commit", "subject", "change [CI]", "decision", "trials", "run"]
SUBJECT_WIDTH = 40


def _pct(value: float) -> str:
    return f"{value * 100:.4g}%"


def settings_line(b: Bisection) -> str:
    s = b.settings
    per_look = confidence_per_look(s.confidence, len(b.looks))
    looking = "" if b.find is Direction.SLOWER else f" (the first {b.find.value} commit)"
    return (
        f"bisect{looking}: good {b.good.short}, bad {b.commits[-1].short}, {len(b.commits)} commits; "
        f"each probe against good at {', '.join(map(str, b.looks))} trials until decided, "
        f"threshold {_pct(s.threshold)}, {_pct(s.confidence)} confidence over the looks ({_pct(per_look)} each), "
        f"{s.statistic}, seed {s.seed}; store {b.store}"
    )


def _role(b: Bisection, probe: Probe, number: int) -> str:
    return "bad" if probe.index == len(b.commits) - 1 else str(number)


def _subject(commit: Commit) -> str:
    text = printable(commit.subject)
    return text if len(text) <= SUBJECT_WIDTH else text[:SUBJECT_WIDTH - 3] + "..."


def _case_label(c) -> str:
    """``CsvParseBenchmark.sumCsv{size=10}``: class, method and parameters."""
    params = ",".join(f"{k}={v}" for k, v in c.case.params_dict.items())
    return short_name(c.case.name) + (f"{{{params}}}" if params else "")


def _rows(b: Bisection) -> list[list[str]]:
    rows = []
    several = len({(c.case, c.metric) for p in b.probes for c, _ in p.comparisons}) > 1
    for number, probe in enumerate(b.probes):
        commit = b.commits[probe.index]
        first = [_role(b, probe, number), commit.short, _subject(commit)]
        run = str(probe.run_id) if probe.run_id is not None else "-"
        if not probe.comparisons:
            rows.append(first + ["-", probe.decision.value, str(probe.trials), run])
        for i, (c, decision) in enumerate(probe.comparisons):
            change = change_cell(c) + (f"  {_case_label(c)}" if several else "")
            lead = first if i == 0 else ["", "", ""]
            rows.append(lead + [change, decision.value, str(probe.trials) if i == 0 else "", run if i == 0 else ""])
    return rows


def conclusion_lines(b: Bisection) -> list[str]:
    found = b.search
    bad = b.commits[-1]
    way = b.find.value
    if found.status in (Status.NOT_SLOWER, Status.NOT_FASTER):
        change = "regression" if b.find is Direction.SLOWER else "improvement"
        return [f"not {way}: bad {bad.short} is not {way} than good {b.good.short} on the selected benchmarks "
                f"(beyond the threshold); there is no {change} to bisect"]
    if found.status == Status.PREMISE_INCONCLUSIVE:
        premise = b.probes[0] if b.probes else None
        if premise is not None and premise.decision == Decision.UNTESTABLE:
            return [f"inconclusive: bad {bad.short} could not be measured against good {b.good.short} "
                    "(see the reason above); nothing was bisected"]
        return [f"inconclusive: could not decide whether bad {bad.short} is {way} than good {b.good.short} "
                f"within {b.looks[-1]} trials; nothing was bisected (more --max-trials, longer iterations, or a larger --threshold)"]
    if found.status == Status.FOUND:
        index = found.candidates[0]
        culprit, parent = b.commits[index], b.parent_of(index)
        label = "culprit:" if b.find is Direction.SLOWER else f"culprit ({way}):"   # the first faster commit
        return [f"{label} {culprit.short}  {printable(culprit.subject)}",
                f"{'parent:':<{len(label)}} {parent.short}  {printable(parent.subject)}"]
    lines = [f"inconclusive: the first {way} commit is one of these {len(found.candidates)} (oldest first); "
             "probes that could not decide are not guessed:"]
    decided = {p.index: p for p in b.probes}
    for index in found.candidates:
        commit = b.commits[index]
        probe = decided.get(index)
        state = f"{probe.decision.value} after {probe.trials} trials" if probe else "not probed"
        lines.append(f"  {commit.short}  {_subject(commit)}  ({state})")
    lines.append("more --max-trials, longer iterations or a larger --threshold may decide them")
    return lines


def render_text(b: Bisection) -> str:
    lines = [settings_line(b), "", *layout_text(Table.of(HEADERS, _rows(b))), ""]
    for probe in b.probes:
        if probe.reason:
            lines.append(f"{b.commits[probe.index].short}: {printable(probe.reason)}")
    return printable_lines(lines) + "\n".join(conclusion_lines(b)) + "\n"


def _commit(commit: Commit | None) -> dict | None:
    return None if commit is None else {"commit": commit.sha, "subject": commit.subject}


def _probe_object(b: Bisection, probe: Probe) -> dict:
    commit = b.commits[probe.index]
    return {
        "role": "premise" if probe.index == len(b.commits) - 1 else "probe",
        "commit": commit.sha, "subject": commit.subject, "decision": probe.decision.value.replace(" ", "_"),
        "trials": probe.trials, "run_id": probe.run_id, "confidence": probe.confidence,
        "seconds": round(probe.seconds, 3), "reason": probe.reason,
        "cases": [
            {"benchmark": c.case.name, "params": c.case.params_dict, "metric": c.metric.name, "unit": c.metric.unit,
             "verdict": c.verdict.value, "decision": d.value.replace(" ", "_"),
             "ratio": {"estimate": json_number(c.ratio.estimate), "ci_low": json_number(c.ratio.low),
                       "ci_high": json_number(c.ratio.high)},
             "change_pct": json_number(c.change_pct)}
            for c, d in probe.comparisons
        ],
    }


def render_json(b: Bisection) -> str:
    found = b.search
    culprit = b.culprit
    parent = b.parent_of(found.candidates[0]) if culprit is not None else None
    document = {
        **document_head("bisect", b.settings),
        "find": b.find.value,
        "good": _commit(b.good), "bad": _commit(b.commits[-1]), "commits": len(b.commits),
        "looks": list(b.looks), "confidence_per_look": confidence_per_look(b.settings.confidence, len(b.looks)),
        "store": b.store,
        "status": found.status.value.replace(" ", "_"),
        "probes": [_probe_object(b, p) for p in b.probes],
        "culprit": _commit(culprit), "parent": _commit(parent),
        "candidates": [b.commits[i].sha for i in found.candidates] if found.status not in (Status.NOT_SLOWER, Status.NOT_FASTER) else [],
    }
    return json.dumps(document, indent=2) + "\n"


def render_bisect(b: Bisection, format: str = "text") -> str:
    """A bisection as ``rigorbench bisect`` prints it: text or json."""
    return {"text": render_text, "json": render_json}[format](b)
