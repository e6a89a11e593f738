"""JSON and CSV documents of a comparison (ARCHITECTURE.md, "JSON output").

Every JSON document carries ``"tool": "rigorbench"``, ``"format_version": 1`` and the
settings used. Non-finite numbers become ``null`` so the output is strict JSON.
"""

from __future__ import annotations

import csv
import io
import json
import math

from typing import TYPE_CHECKING, Callable, Mapping

from rigorbench import __version__
from rigorbench.errors import UserError

if TYPE_CHECKING:  # renderers of lint and power use this module too: no analysis to load
    from rigorbench.analysis.compare import Comparison, ComparisonResult, SideSummary

FORMAT_VERSION = 1


def render_as(renderers: Mapping[str, Callable[..., str]], format: str, *args) -> str:
    """``renderers[format](*args)``; an unknown ``format`` is a UserError naming the known ones."""
    try:
        renderer = renderers[format]
    except KeyError:
        raise UserError(f"unknown format {format!r}; allowed values are {', '.join(renderers)}") from None
    return renderer(*args)


def json_number(value: float | None):
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _side(side: SideSummary) -> dict:
    return {
        "n": side.n,
        "mean": json_number(side.mean),
        "median": json_number(side.median),
        "ci_low": json_number(side.ci.low),
        "ci_high": json_number(side.ci.high),
        "cv": json_number(side.cv),
        "forks": side.forks,
        "trials": side.trials,
        "instances": side.instances,
    }


def comparison_object(c: Comparison) -> dict:
    return {
        "benchmark": c.case.name,
        "harness": c.case.harness,
        "params": c.case.params_dict,
        "metric": c.metric.name,
        "unit": c.metric.unit,
        "higher_is_better": c.metric.higher_is_better,
        "baseline": _side(c.baseline),
        "contender": _side(c.contender),
        "ratio": {"estimate": json_number(c.ratio.estimate), "ci_low": json_number(c.ratio.low), "ci_high": json_number(c.ratio.high)},
        "change_pct": json_number(c.change_pct),
        "mds_pct": None if c.mds_pct is None else json_number(c.mds_pct),
        "paired": c.paired,
        "p_value": json_number(c.p_value),
        "cliffs_delta": json_number(c.cliffs_delta),
        "effect_size": c.effect_size,
        "verdict": c.verdict.value,
        "warnings": [{"code": w.code, "message": w.message, "severity": w.severity, "hint": w.hint} for w in c.warnings],
        "verdict_supported": c.verdict_supported,
    }


def _unmatched(keys) -> list[dict]:
    return [{"benchmark": case.name, "params": case.params_dict, "metric": metric.name} for case, metric in keys]


def document_head(command: str, settings=None) -> dict:
    """What every JSON document starts with: the tool, its versions, the command and the
    settings used (ARCHITECTURE.md, "JSON output")."""
    head = {"tool": "rigorbench", "tool_version": __version__, "format_version": FORMAT_VERSION, "command": command}
    return {**head, **(settings.as_dict() if settings is not None else {})}


def sequential_object(design: dict) -> dict:
    """An adaptive run's stopping rule and each benchmark's fate: ``decided_after`` trials, or
    null when it has no verdict; ``given_up_after`` trials when futility retired it without
    one (its ``chance`` of a verdict by ``max_trials`` was below ``futility``), else null."""
    retired = design.get("retired", {})

    def fate(name: str) -> dict:
        r = retired.get(name)
        given_up = r is not None and r["verdict"] == "inconclusive"
        return {"benchmark": name, "verdict": r["verdict"] if r else "inconclusive",
                "decided_after": r["trials"] if r and not given_up else None,
                "given_up_after": r["trials"] if given_up else None,
                "chance": r.get("chance") if given_up else None}

    return {
        "rule": "pocock",
        "min_trials": design["min_trials"], "max_trials": design["max_trials"], "max_seconds": design.get("max_seconds"),
        "confidence": design.get("analysis", {}).get("confidence"), "confidence_per_look": design["confidence_per_look"],
        "futility": design.get("futility", 0.0),
        "benchmarks": [fate(name) for name in design.get("benchmarks", {})],
    }


def render_json(report: ComparisonResult) -> str:
    from rigorbench.analysis.compare import ordered   # regressions first, as in every output

    document = {
        **document_head("compare", report.settings),
        "baseline": {"label": report.baseline_label, "files": list(report.sources.get("baseline", ()))},
        "contender": {"label": report.contender_label, "files": list(report.sources.get("contender", ()))},
        "comparisons": [comparison_object(c) for c in ordered(report.comparisons)],
        "only_in_baseline": _unmatched(report.only_in_baseline),
        "only_in_contender": _unmatched(report.only_in_contender),
        "summary": {v: report.count(v) for v in ("slower", "faster", "unchanged", "inconclusive")},
        "input_warnings": list(report.input_warnings),
        "mismatches": [
            {"kind": m.kind, "subject": m.subject, "baseline": m.baseline, "contender": m.contender} for m in report.mismatches
        ],
        "failed_in_baseline": list(report.failed_in_baseline),
        "failed_in_contender": list(report.failed_in_contender),
    }
    if report.sequential is not None:
        document["sequential"] = sequential_object(report.sequential)
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


CSV_COLUMNS = (
    "benchmark", "params", "metric", "unit", "higher_is_better",
    "baseline_n", "baseline_mean", "baseline_median", "baseline_ci_low", "baseline_ci_high", "baseline_cv",
    "contender_n", "contender_mean", "contender_median", "contender_ci_low", "contender_ci_high", "contender_cv",
    "ratio", "ratio_ci_low", "ratio_ci_high", "change_pct", "p_value", "cliffs_delta", "effect_size", "verdict",
    "verdict_supported", "mismatch", "mds_pct", "paired",
)


def csv_safe(text: str) -> str:
    """Keep untrusted names from being read as formulas by spreadsheet programs."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def render_csv(report: ComparisonResult) -> str:
    from rigorbench.analysis.compare import ordered

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    # Every row says it when the sides were compared although they do not match.
    mismatch = "; ".join(m.message for m in report.mismatches)
    for c in ordered(report.comparisons):
        obj = comparison_object(c)
        params = ";".join(f"{k}={v}" for k, v in c.case.params)
        row = [csv_safe(c.case.name), csv_safe(params), c.metric.name, c.metric.unit, c.metric.higher_is_better]
        for side in ("baseline", "contender"):
            row += [obj[side][k] for k in ("n", "mean", "median", "ci_low", "ci_high", "cv")]
        row += [obj["ratio"]["estimate"], obj["ratio"]["ci_low"], obj["ratio"]["ci_high"]]
        row += [obj["change_pct"], obj["p_value"], obj["cliffs_delta"], c.effect_size, c.verdict.value]
        row += [c.verdict_supported, csv_safe(mismatch), obj["mds_pct"], c.paired]
        writer.writerow(["" if v is None else v for v in row])
    return buffer.getvalue()
