"""SARIF output checked by Microsoft's SARIF validator (installed by 'make test' under .tools/)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SARIF_TOOL = ROOT / ".tools/sarif/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"


def assert_valid_sarif(text: str, folder: Path) -> None:
    """The validator reads ``text`` (written into ``folder``) with no error and no warning."""
    assert SARIF_TOOL.exists(), "the SARIF validator is missing: run 'make test' (it installs it)"
    sarif = folder / "out.sarif"
    sarif.write_text(text)
    env = dict(os.environ, DOTNET_SYSTEM_GLOBALIZATION_INVARIANT="1", DOTNET_CLI_TELEMETRY_OPTOUT="1")
    done = subprocess.run([str(SARIF_TOOL), "validate", str(sarif)], capture_output=True, text=True, env=env, timeout=120)
    report = done.stdout + done.stderr
    assert "Analysis completed successfully" in report, report
    assert [line for line in report.splitlines() if ": error " in line or ": warning " in line] == [], report
