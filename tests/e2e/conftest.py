"""Fixtures shared by the end-to-end tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A copy of examples/jmh-demo (without build output or a store) per test module."""
    target = tmp_path_factory.mktemp("e2e") / "jmh-demo"
    shutil.copytree(ROOT / "examples" / "jmh-demo", target, ignore=shutil.ignore_patterns("target", ".rigorbench"))
    return target
