"""Severity is ordered by meaning, not alphabetically, and stays a string on the outside."""

from __future__ import annotations

import json

import pytest

from rigorbench.model import SEVERITIES, Diagnostic, Finding, Severity


def test_order_is_info_warning_error():
    assert Severity.INFO < Severity.WARNING < Severity.ERROR
    assert Severity.ERROR >= "warning" and not Severity.INFO >= "warning"  # alphabetically "info" > "error"
    assert sorted(["error", "info", "warning"], key=Severity) == list(SEVERITIES) == ["info", "warning", "error"][:3]
    assert max(map(Severity, ["info", "error", "warning"])) is Severity.ERROR


def test_diagnostics_and_findings_carry_a_severity_that_reads_as_its_name():
    d = Diagnostic("x", "m", "info")
    assert d.severity is Severity.INFO and d.severity == "info" and f"{d.severity}" == "info"
    assert json.dumps({"severity": d.severity}) == '{"severity": "info"}'
    f = Finding("A.java", 3, 5, "RETU", "error", "message", "A.a", "hint", True)
    assert f.severity is Severity.ERROR
    with pytest.raises(ValueError):
        Diagnostic("x", "m", "fatal")
