"""Team settings for lint: the ``[lint]`` table of ``rigorbench.toml`` and the baseline file.

``[lint]`` is read here, on its own, so that lint does not depend on the experiment loader
(``rigorbench.experiment.config``), which ignores the table::

    [lint]
    select = ["RETU", "LOOP", "FINAL"]   # only these rules (default: all)
    ignore = ["PRINT"]                    # never these
    severity = { FINAL = "error" }        # a rule's findings at another severity

A baseline (``--baseline FILE``) records the fingerprints of today's findings as JSON
(``{"rigorbench_lint_baseline": 1, "fingerprints": [...]}``, sorted) so that a large
existing suite can adopt lint and see only new findings.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from rigorbench.errors import InputError, UserError
from rigorbench.files import read_input
from rigorbench.lint.engine import LintResult
from rigorbench.lint.rules import RULES
from rigorbench.model import SEVERITIES

BASELINE_KEY = "rigorbench_lint_baseline"


@dataclass(frozen=True)
class LintSettings:
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)

    def rules(self, chosen: list[str] | None) -> list[str]:
        """The rules to run: ``chosen`` (``--rules``) or ``select``, minus ``ignore``."""
        base = chosen if chosen is not None else list(self.select or RULES)
        return [r for r in base if r not in self.ignore]

    def apply(self, result: LintResult) -> LintResult:
        """The result with the configured severities."""
        if not self.severity:
            return result
        findings = tuple(replace(f, severity=self.severity.get(f.rule, f.severity))
                         for f in result.findings)
        return replace(result, findings=findings)


def load_settings(path: str) -> LintSettings:
    """The ``[lint]`` table of ``path`` (missing table: defaults); bad values exit 2."""
    try:
        document = tomllib.loads(read_input(path, what="configuration file", gunzip=False).decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise InputError(path, None, f"not valid TOML: {error}") from None
    table = document.get("lint", {})
    if not isinstance(table, dict):
        raise InputError(path, None, "[lint] must be a table")
    unknown = sorted(set(table) - {"select", "ignore", "severity"})
    if unknown:
        raise InputError(path, None, f"[lint] has no key {unknown[0]!r} (keys: select, ignore, severity)")
    select = _rule_list(path, table, "select")
    severity = table.get("severity", {})
    if not isinstance(severity, dict):
        raise InputError(path, None, "[lint] severity must be a table such as { FINAL = \"error\" }")
    levels = {}
    for rule, level in severity.items():
        _check_rule(path, "severity", rule)
        if level not in SEVERITIES:
            raise InputError(path, None, f"[lint] severity of {rule}: {level!r} is not one of "
                             f"{', '.join(SEVERITIES)}")
        levels[rule.upper()] = level
    return LintSettings(tuple(select) if "select" in table else None,
                        tuple(_rule_list(path, table, "ignore")), levels)


def _rule_list(path: str, table: dict, key: str) -> list[str]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(path, None, f"[lint] {key} must be a list of rule ids such as [\"RETU\"]")
    return [_check_rule(path, key, v) for v in value]


def _check_rule(path: str, key: str, rule: str) -> str:
    if rule.upper() not in RULES:
        raise InputError(path, None, f"[lint] {key}: unknown rule {rule!r}; the rules are {', '.join(RULES)}")
    return rule.upper()


def read_baseline(path: str) -> frozenset[str]:
    try:
        document = json.loads(read_input(path, what="lint baseline", gunzip=False).decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InputError(path, None, f"not a lint baseline (JSON): {error}") from None
    prints = document.get("fingerprints") if isinstance(document, dict) else None
    if not isinstance(document, dict) or BASELINE_KEY not in document or not isinstance(prints, list):
        raise InputError(path, None, "not a lint baseline: write one with 'rigorbench lint PATH --baseline FILE'")
    return frozenset(str(p) for p in prints)


def write_baseline(path: str, result: LintResult) -> None:
    document = {BASELINE_KEY: 1, "fingerprints": sorted(f.fingerprint for f in result.findings)}
    try:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(json.dumps(document, indent=1) + "\n")
    except OSError as error:
        raise UserError(f"{path}: cannot write the baseline: {error.strerror}") from None


def without_baseline(result: LintResult, known: frozenset[str]) -> LintResult:
    """Only the findings whose fingerprint the baseline does not hold."""
    return replace(result, findings=tuple(f for f in result.findings if f.fingerprint not in known))


DEFAULT_CONFIG = "rigorbench.toml"


def settings_for(config: str | None) -> LintSettings:
    """The ``[lint]`` table of ``config``, else of ./rigorbench.toml when it exists, else defaults."""
    if config is None:
        return load_settings(DEFAULT_CONFIG) if Path(DEFAULT_CONFIG).is_file() else LintSettings()
    return load_settings(config)


def against_baseline(result: LintResult, baseline: str) -> tuple[LintResult, bool]:
    """The findings ``baseline`` does not record, and whether the baseline was written now:
    a baseline file that does not exist yet records today's findings (then none is new)."""
    if not Path(baseline).exists():
        write_baseline(baseline, result)
        return without_baseline(result, frozenset(f.fingerprint for f in result.findings)), True
    return without_baseline(result, read_baseline(baseline)), False


def rule_named(rule_id: str):
    """The rule ``rule_id`` names (any case); UserError listing the rules for an unknown one."""
    try:
        return RULES[rule_id.strip().upper()]
    except KeyError:
        raise UserError(f"unknown rule {rule_id!r}; the rules are {', '.join(RULES)}") from None


def rules_named(text: str | None) -> list[str] | None:
    """The rule ids of a comma-separated list (``--rules``); None for none given."""
    if not text:
        return None
    return [rule_named(part).id for part in text.split(",") if part.strip()]
