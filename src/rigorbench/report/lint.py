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
from rigorbench.model import SEVERITIES, Finding, Measured
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
    "PARAMW": "ParamOverwrittenBeforeMeasurement", "PARAMU": "ParamNeverRead",
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


def render_text(result, rules: Mapping) -> str:
    """Findings grouped per benchmark (in order of first appearance), then a summary line."""
    groups: dict[str, list[Finding]] = {}
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
        lines.append("")
    lines.extend(f"warning: {w}" for w in result.warnings)
    lines.append(summary_line(result))
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
    document = {
        **document_head("lint"),
        "files": result.files,
        "benchmarks": result.benchmarks,
        "findings": [finding_object(f) for f in result.findings],
        "summary": {s: sum(f.severity == s for f in result.findings) for s in reversed(SEVERITIES)},
        "warnings": list(result.warnings),
    }
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


def _sarif_result(f: Finding, index: dict[str, int]) -> dict:
    region = {"startLine": f.line, "startColumn": f.column}
    if f.end_line:
        region.update(endLine=f.end_line, endColumn=max(f.end_column, 1))
    text = f.message + (f" ({f.benchmark})" if f.benchmark else "") + (f" Hint: {f.hint}" if f.hint else "")
    text += f" Measured: {f.measured.reason}." if f.measured is not None else ""
    return {
        "ruleId": f.rule,
        "ruleIndex": index[f.rule],
        "level": SARIF_LEVELS[f.severity],
        "message": {"text": text},
        "locations": [{"physicalLocation": {"artifactLocation": _artifact_uri(f.path), "region": region}}],
        **({"partialFingerprints": {"rigorbench/v1": f.fingerprint}} if f.fingerprint else {}),
        "properties": {"benchmark": f.benchmark, "fixable": f.fixable,
                       **({"measured": measured_object(f.measured)} if f.measured is not None else {})},
    }


def render_sarif(result, rules: Mapping) -> str:
    """A SARIF 2.1.0 log with every rule described (so code scanning can show the help)."""
    rule_list = list(rules.values())
    index = {rule.id: i for i, rule in enumerate(rule_list)}
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
        "results": [_sarif_result(f, index) for f in result.findings],
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
        f"Fixable: {fix}\nReference: {rule.reference}\n"
    )


def render_rules(rules: Mapping) -> str:
    """One line per rule (``lint --list-rules``): id, severity, fixable, title."""
    from rigorbench.report.table import Table, layout_text

    rows = [[r.id, r.severity, "fix" if r.fixable else "", r.title] for r in rules.values()]
    return "\n".join(layout_text(Table.of(["rule", "severity", "fix", "title"], rows), header=False)) + "\n"
