"""Renderers of lint results: compiler-style text, JSON (ARCHITECTURE.md) and SARIF 2.1.0.

The text form puts ``path:line:col: RULE message`` first on each line, so editors and CI
log viewers that understand compiler output can jump to it; findings are grouped under the
benchmark they belong to. SARIF follows the OASIS SARIF 2.1.0 standard as GitHub code
scanning reads it: one run, the rules in ``tool.driver.rules``, one result per finding.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from urllib.parse import quote

from rigorbench import __version__
from rigorbench.model import IMPACT_VERDICTS, SEVERITIES, Finding, Impact, ImpactCase, Measured, Measurement
from rigorbench.report.documents import document_head
from rigorbench.terminal import printable_lines
from rigorbench.units import time_unit_for, unit_factor

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/rigorbench/rigorbench"
# SARIF's result levels are none/note/warning/error; our "info" is its "note".
SARIF_LEVELS = {"info": "note", "warning": "warning", "error": "error"}
# SARIF wants a readable ``name`` that differs from the opaque ``id`` (SARIF1001).
SARIF_NAMES = {
    "RETU": "UnconsumedResult", "LOOP": "FusedLoopAccumulation", "FINAL": "ConstantFoldedInput",
    "INVO": "InvocationLevelFixture", "FORK": "NoFork", "TIMER": "HandTimingInBenchmark",
    "SLEEP": "SleepInBenchmark", "PRINT": "OutputInBenchmark", "VOID": "DroppedResults",
    "OPINV": "OperationsPerInvocationWithoutLoop", "SHARED": "SharedMutableStatic",
    "PARAMW": "ParamOverwrittenBeforeMeasurement", "PARAMU": "ParamNeverRead", "STALE": "StateInputSortedInPlace",
    "GO-RESULT": "GoUnusedResultInLoop", "GO-SETUP": "GoTimedSetup", "GO-TIMER": "GoTimerToggleInLoop",
    "GO-BN": "GoWritesBN", "GO-NOLOOP": "GoBenchmarkIgnoresBN", "GO-BLOOP": "GoPreferBLoop",
}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary_line(result, fixable: int | None = None) -> str:
    """``3 findings (1 error, 2 warnings) in 2 of 14 files, 9 benchmarks; 2 fixable with --fix``."""
    findings = result.findings
    if not findings:
        return f"no findings in {_plural(result.files, 'file')} ({_plural(result.benchmarks, 'benchmark')})"
    counts = [
        _plural(sum(f.severity == s for f in findings), s)
        for s in reversed(SEVERITIES)
        if any(f.severity == s for f in findings)
    ]
    files = len({f.path for f in findings})
    line = (
        f"{_plural(len(findings), 'finding')} ({', '.join(counts)}) in {files} of "
        f"{_plural(result.files, 'file')}, {_plural(result.benchmarks, 'benchmark')}"
    )
    fixable = sum(f.fixable for f in findings) if fixable is None else fixable
    return line + (f"; {fixable} fixable with --fix" if fixable else "")


def _times(ratio: float) -> str:
    return f"{ratio:.3g}x" if ratio < 10 else f"{ratio:.0f}x"


def change_words(case: ImpactCase, higher_is_better: bool) -> str:
    """``the fixed variant is 38x slower per operation (fixed/original 38.2, 99% CI ...)``'s first part."""
    slower = case.estimate < 1 if higher_is_better else case.estimate > 1
    factor = case.estimate if case.estimate >= 1 else (1 / case.estimate if case.estimate > 0 else float("inf"))
    unit = "in throughput" if higher_is_better else "per operation"
    return f"{_times(factor)} {'slower' if slower else 'faster'} {unit}"


def impact_words(impact: Impact, rule: str) -> str:
    """What the measurement of a finding said, in one line (text and SARIF)."""
    if impact.verdict == "not_measured":
        return f"not measured: {impact.reason}"
    ratio = impact.ratio
    shared = f"; one measurement for the {impact.shared} findings of this benchmark" if impact.shared > 1 else ""
    if ratio is None:   # several @Param cases
        return f"{impact.verdict.replace('_', ' ')}: {impact.reason or 'in all ' + str(len(impact.cases)) + ' cases'}{shared}"
    figures = f"fixed/original {ratio.estimate:.3g} [{ratio.ci_low:.3g}, {ratio.ci_high:.3g}]"
    moved = f"the fixed variant is {change_words(ratio, impact.higher_is_better)} ({figures})"
    if impact.verdict == "confirmed":
        return f"confirmed: {moved}, as {rule} predicts{shared}"
    if impact.verdict == "no_effect":
        return f"no effect: the fixed variant measures the same within the threshold ({figures}){shared}"
    if ratio.change in ("slower", "faster"):
        return f"inconclusive: {moved}, the opposite of what {rule} predicts ({impact.predicted}){shared}"
    return f"inconclusive: the interval is too wide to tell ({figures}); run more --trials{shared}"


def impact_object(impact: Impact) -> dict:
    def ratio(case: ImpactCase) -> dict:
        return {"estimate": case.estimate, "ci_low": case.ci_low, "ci_high": case.ci_high}

    return {
        "verdict": impact.verdict,
        "reason": impact.reason,
        "benchmark": impact.benchmark,
        "unit": impact.unit,
        "higher_is_better": impact.higher_is_better,
        "predicted": impact.predicted,
        "ratio": ratio(impact.ratio) if impact.ratio is not None else None,
        "cases": [{"params": dict(c.params), "change": c.change, "ratio": ratio(c)} for c in impact.cases],
        "shared": impact.shared,
    }


def measurement_line(measurement: Measurement) -> str:
    """``measured 2 of 3 findings: 1 confirmed, 1 no effect (5 trials, ...)``."""
    verdicts = [i.verdict for i in measurement.impacts.values()]
    measured = [v for v in verdicts if v != "not_measured"]
    counts = ", ".join(f"{measured.count(v)} {v.replace('_', ' ')}" for v in IMPACT_VERDICTS[:3] if v in measured)
    where = f"; run {measurement.run_id} in {measurement.store}" if measurement.run_id is not None else ""
    if not measured:
        return f"measured 0 of {_plural(len(verdicts), 'finding')}: none could be (see each one's reason)"
    return (f"measured {len(measured)} of {_plural(len(verdicts), 'finding')}{': ' + counts if counts else ''} "
            f"(original vs fixed, {_plural(measurement.trials, 'trial')}, threshold {measurement.threshold:.0%}, "
            f"{measurement.confidence:.0%} confidence{where})")


def render_text(result, rules: Mapping) -> str:
    """Findings grouped per benchmark (in order of first appearance), then a summary line."""
    groups: dict[str, list[Finding]] = {}
    measurement = result.measurement
    for finding in result.findings:
        groups.setdefault(finding.benchmark, []).append(finding)
    lines: list[str] = []
    for benchmark, findings in groups.items():
        lines.append(f"{benchmark or '(outside benchmark methods)'}:")
        for f in findings:
            lines.append(f"{f.path}:{f.line}:{f.column}: {f.rule} [{f.severity}] {f.message}")
            if f.hint:
                lines.append(f"    hint: {f.hint}")
            if f.measured is not None:
                lines.append(f"    measured: {f.measured.reason}")
            if measurement is not None and f in measurement.impacts:
                lines.append(f"    measured: {impact_words(measurement.impacts[f], f.rule)}")
        lines.append("")
    lines.extend(f"warning: {w}" for w in result.warnings)
    lines.append(summary_line(result))
    if measurement is not None:
        lines.append(measurement_line(measurement))
    if result.findings:
        used = sorted({f.rule for f in result.findings})
        lines.append(f"explain a rule with 'rigorbench lint --explain {used[0]}' ({', '.join(used)})")
    return printable_lines(lines)


def finding_object(f: Finding) -> dict:
    return {
        "rule": f.rule,
        "severity": f.severity,
        "path": f.path,
        "line": f.line,
        "column": f.column,
        "end_line": f.end_line or None,
        "end_column": f.end_column or None,
        "benchmark": f.benchmark,
        "message": f.message,
        "hint": f.hint,
        "fixable": f.fixable,
        "fingerprint": f.fingerprint,
        **({"measured": measured_object(f.measured)} if f.measured is not None else {}),
    }


def measured_object(m: Measured) -> dict:
    """A finding's ``measured`` as JSON: the times in one unit (that in which the largest reads
    1 or more: ``ms/op``, ``ns/op`` ...), the decision (confirmed, cleared, kept) and why, and
    what was matched."""
    unit = time_unit_for(m.high_ns)
    factor = unit_factor("ns/op", unit)
    return {
        "decision": m.decision,
        "value": m.value_ns * factor,
        "low": m.low_ns * factor,
        "high": m.high_ns * factor,
        "unit": unit,
        "cases": m.cases,
        "benchmarks": list(m.benchmarks),
        "params": {k: list(v) for k, v in m.params},
        "source": m.source,
        "reason": m.reason,
    }


def render_json(result, rules: Mapping) -> str:
    measurement = result.measurement
    findings = [finding_object(f) for f in result.findings]
    if measurement is not None:
        for found, f in zip(findings, result.findings):
            found["impact"] = impact_object(measurement.impacts[f]) if f in measurement.impacts else None
    document = {
        **document_head("lint"),
        "files": result.files,
        "benchmarks": result.benchmarks,
        "findings": findings,
        "summary": {s: sum(f.severity == s for f in result.findings) for s in reversed(SEVERITIES)},
        "warnings": list(result.warnings),
    }
    if measurement is not None:
        document["measurement"] = {"trials": measurement.trials, "threshold": measurement.threshold,
                                   "confidence": measurement.confidence, "run": measurement.run_id,
                                   "store": measurement.store}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _artifact_uri(path: str) -> dict:
    """A relative path stays relative to the checkout (``%SRCROOT%``); others become file URIs."""
    candidate = Path(path)
    if not candidate.is_absolute():
        return {"uri": quote(candidate.as_posix()), "uriBaseId": "%SRCROOT%"}
    return {"uri": candidate.as_uri()}


def _sarif_rule(rule) -> dict:
    named = {"name": SARIF_NAMES[rule.id]} if rule.id in SARIF_NAMES else {}
    return {
        "id": rule.id,
        **named,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.explanation.split("\n\n")[0].strip()},
        "help": {"text": f"{rule.explanation.strip()}\n\nReference: {rule.reference}"},
        "defaultConfiguration": {"level": SARIF_LEVELS[rule.severity]},
        "properties": {"tags": ["benchmark", "jmh" if rule.language == "java" else "go"],
                       "reference": rule.reference},
    }


def _sarif_result(f: Finding, index: dict[str, int], impact: Impact | None = None) -> dict:
    region = {"startLine": f.line, "startColumn": f.column}
    if f.end_line:
        region.update(endLine=f.end_line, endColumn=max(f.end_column, 1))
    text = f.message + (f" ({f.benchmark})" if f.benchmark else "") + (f" Hint: {f.hint}" if f.hint else "")
    text += f" Measured: {f.measured.reason}." if f.measured is not None else ""
    text += f" Measured: {impact_words(impact, f.rule)}." if impact is not None else ""
    measured = {"impact": impact_object(impact)} if impact is not None else {}
    if f.measured is not None:
        measured["measured"] = measured_object(f.measured)
    return {
        "ruleId": f.rule,
        "ruleIndex": index[f.rule],
        "level": SARIF_LEVELS[f.severity],
        "message": {"text": text},
        "locations": [{"physicalLocation": {"artifactLocation": _artifact_uri(f.path), "region": region}}],
        **({"partialFingerprints": {"rigorbench/v1": f.fingerprint}} if f.fingerprint else {}),
        "properties": {"benchmark": f.benchmark, "fixable": f.fixable, **measured},
    }


def render_sarif(result, rules: Mapping) -> str:
    """A SARIF 2.1.0 log with every rule described (so code scanning can show the help)."""
    rule_list = list(rules.values())
    index = {rule.id: i for i, rule in enumerate(rule_list)}
    impacts = result.measurement.impacts if result.measurement is not None else {}
    run = {
        "tool": {
            "driver": {
                "name": "rigorbench",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [_sarif_rule(rule) for rule in rule_list],
            }
        },
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(os.getcwd()).as_uri() + "/"}},
        "results": [_sarif_result(f, index, impacts.get(f)) for f in result.findings],
        "columnKind": "unicodeCodePoints",
    }
    document = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


LINT_RENDERERS: dict[str, Callable] = {"text": render_text, "json": render_json, "sarif": render_sarif}


def render_rule(rule) -> str:
    """One rule explained (``lint --explain``): what goes wrong, why, the fix, the reference."""
    fix = "yes: 'rigorbench lint --fix' rewrites it" if rule.fixable else "no: needs a person"
    return (
        f"{rule.id} [{rule.severity}] {rule.title}\n\n{rule.explanation.strip()}\n\n"
        f"Fixable: {fix}\n{_measured_line(rule)}Reference: {rule.reference}\n"
    )


def _measured_line(rule) -> str:
    """What ``lint --measure`` expects of the rule's fix (fixable JMH rules only)."""
    from rigorbench.analysis.impact import unmeasured_reason

    if not rule.fixable or rule.language != "java":
        return ""
    if not rule.fix_effect:
        return f"Measured (--measure): not measured; {unmeasured_reason(rule)}\n"
    way = "more time per operation, or less throughput" if rule.fix_effect == "slower" else \
        "less time per operation, or more throughput"
    return (f"Measured (--measure): confirmed when the fixed variant is {rule.fix_effect} than the original "
            f"({way}) beyond the threshold\n")


def render_rules(rules: Mapping) -> str:
    """One line per rule (``lint --list-rules``): id, severity, fixable, title."""
    from rigorbench.report.table import Table, layout_text

    rows = [[r.id, r.severity, "fix" if r.fixable else "", r.title] for r in rules.values()]
    return "\n".join(layout_text(Table.of(["rule", "severity", "fix", "title"], rows), header=False)) + "\n"
