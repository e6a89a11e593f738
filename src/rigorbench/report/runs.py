"""The runs of a store (``rigorbench runs``), and one stored run in detail (``--run N``):
what it ran and what an adaptive run chose."""

from __future__ import annotations

import json
from typing import Mapping, Sequence

from rigorbench.report.table import Table, layout_text
from rigorbench.terminal import printable
from rigorbench.units import format_duration


RUNS_HEADERS = ["run", "created", "status", "versions", "trials", "failed", "samples", "wall"]


def render_runs(runs: Sequence[tuple[object, Mapping]], format: str = "text") -> str:
    """The runs (newest first, with their counts) as a table (text) or a JSON document."""
    if format == "json":
        return _json({"runs": [_run_object(info, counts) for info, counts in runs]})
    if not runs:
        return "no runs\n"
    rows = [[str(info.run_id), info.created, info.status, " vs ".join(v.label for v in info.versions),
             f"{counts['executions_done']}/{counts['executions_planned']}", str(counts["failed"]), str(counts["samples"]),
             format_duration(info.wall_seconds) if info.wall_seconds else "-"] for info, counts in runs]
    return "".join(line + "\n" for line in layout_text(Table.of(RUNS_HEADERS, rows)))


def _json(body: dict) -> str:
    return json.dumps({"tool": "rigorbench", "format_version": 1, **body}, indent=2) + "\n"


def _run_object(info, counts: Mapping) -> dict:
    return {
        "run_id": info.run_id, "created": info.created, "status": info.status, "harness": info.harness,
        "project": info.project, "order": info.order, "seed": info.seed,
        "versions": [{"label": v.label, "source": v.source, "commit": v.commit, "dirty": v.dirty} for v in info.versions],
        "wall_seconds": info.wall_seconds, "harness_seconds": info.harness_seconds, **counts,
    }


def render_run(info, counts: Mapping, format: str = "text") -> str:
    """One run: JSON (its listing entry and stored settings), or text: header, versions,
    trials, design, harness settings, then the warmup chosen per benchmark (``--warmup
    auto``) and the fate of each benchmark (``--until-decided``)."""
    if format == "json":
        return _json({"run": {**_run_object(info, counts), "settings": info.settings}})
    settings = info.settings or {}
    versions = ", ".join(_version(v) for v in info.versions)
    wall = f", wall {format_duration(info.wall_seconds)}" if info.wall_seconds else ""
    lines = [
        f"run {info.run_id}: {info.status}, created {info.created}, harness {info.harness}, project {info.project}",
        f"versions: {versions}",
        f"executions: {counts['executions_done']} of {counts['executions_planned']} planned done "
        f"({counts['failed']} failed), {counts['samples']} samples{wall}",
        f"design: order {info.order}, seed {info.seed}" + (f", {settings['trials']} trials" if "trials" in settings else ""),
    ]
    if settings.get("run"):
        lines.append("settings: " + _harness_settings(settings["run"], jmh=info.harness == "jmh"))
    if settings.get("not_run"):
        lines.append("not run (not in every version): " + ", ".join(settings["not_run"]))
    setup = info.setup
    if setup.cluster:
        lines.append(f"cluster: {setup.cluster.get('instances')} instances ({setup.cluster.get('design')}) at "
                     f"{setup.cluster.get('address')}, {setup.cluster.get('trials_per_instance')} trials each to start")
    if setup.warmups:
        lines.append(f"warmup auto (pilot fork of {setup.pilot_warmup or '?'} warmup iterations per version):")
        lines += [f"  {line}" for line in _warmups(setup.warmups)]
    if setup.until_decided:
        from rigorbench.report.compare import sequential_note   # the comparison's renderer, loaded when needed

        note = sequential_note(setup.until_decided)
        if info.status != "finished":
            note = note.replace("undecided at the budget", "still open")
        lines.append(note)
    return "".join(printable(line) + "\n" for line in lines)


def _version(version) -> str:
    facts = [version.source] if version.source != version.label else []
    if version.commit:
        facts.append(f"commit {version.commit[:12]}" + (", dirty" if version.dirty else ""))
    return version.label + (f" ({', '.join(facts)})" if facts else "")


def _harness_settings(run: Mapping, jmh: bool) -> str:
    """The settings the harness used; JMH's own ones (warmup time, mode, JVM options,
    profilers) only for JMH runs, where they mean something (the other harnesses keep the
    first iterations of each process as warmup, at the iteration time)."""
    warmup = f"warmup {run.get('warmup_iterations')}" + (f" x {run.get('warmup_time')}" if jmh else "")
    parts = [f"forks {run.get('forks')}", warmup, f"iterations {run.get('iterations')} x {run.get('iteration_time')}"]
    own = (("mode", "mode"), ("time_unit", "unit"), ("threads", "threads")) if jmh else (("threads", "threads"),)
    for key, label in (*own, ("timeout_s", "timeout (s)")):
        if run.get(key) is not None:
            parts.append(f"{label} {run[key]}")
    lists = (("include", "benchmarks"), ("jvm_args", "JVM options"), ("profilers", "profilers")) if jmh else (("include", "benchmarks"),)
    for key, label in lists:
        if run.get(key):
            parts.append(f"{label} {' '.join(map(str, run[key]))}")
    if run.get("params"):
        parts.append("params " + " ".join(f"{k}={v}" for k, v in run["params"]))
    return ", ".join(parts)


def _warmups(choices: Mapping[str, Mapping]) -> list[str]:
    lines = []
    for name, choice in choices.items():
        starts = ", ".join(f"{label} {'never' if start is None else start}" for label, start in choice.get("starts", {}).items())
        state = "steady from iteration" if choice.get("reached") else "NOT steady in the pilot; steady from"
        lines.append(f"{name}: {choice.get('warmup')} warmup iterations ({state} {starts or '-'})")
    return lines
