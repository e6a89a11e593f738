"""Every optional dependency (pyproject's extras: cluster = distributed, postgres = psycopg),
missing on any path that needs it: one line naming what to install, exit 2, no traceback.

The package is made missing in-process: ``sys.modules[name] = None`` makes its import raise
ImportError (for the package and every submodule already loaded).
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from rigorbench.cli import main
from rigorbench.errors import MissingDependency
from rigorbench.experiment.address import TLSFiles

CLUSTER = "rigorbench: error: --cluster needs the 'distributed' package (rigorbench's cluster extra): pip install 'distributed>=2024.8'\n"


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


def without(monkeypatch, package: str) -> None:
    for name in [name for name in sys.modules if name == package or name.startswith(package + ".")] + [package]:
        monkeypatch.setitem(sys.modules, name, None)


@pytest.fixture
def project(tmp_path):
    for label in ("v1", "v2"):
        (tmp_path / "proj" / label).mkdir(parents=True)
    return tmp_path / "proj"


@pytest.mark.parametrize("command", [
    ["ab", "PROJECT", "--base", "v1", "--contender", "v2", "--trials", "2"],
    ["ab", "PROJECT", "--base", "v1", "--contender", "v2", "--until-decided", "--min-trials", "4", "--max-trials", "6"],
    ["record", "PROJECT", "--rev", "v1", "--commit", "abc123", "--time", "2024-05-01T12:00:00Z", "--trials", "2"],
])
def test_a_cluster_run_without_distributed_says_what_to_install(command, project, fake, tmp_path, monkeypatch):
    without(monkeypatch, "distributed")
    argv = [str(project) if word == "PROJECT" else word for word in command]
    code, out, err = cli(*argv, "--cluster", "local:2", "--no-lint", "--store", str(tmp_path / "r.db"))
    assert (code, err) == (2, CLUSTER) and out == ""


def test_the_worker_without_distributed_says_what_to_install(monkeypatch, tmp_path):
    without(monkeypatch, "distributed")
    monkeypatch.setenv("RIGORBENCH_LOCK_DIR", str(tmp_path))
    code, out, err = cli("worker", "tcp://127.0.0.1:8786")
    assert (code, out) == (2, "")
    assert err == "rigorbench: error: rigorbench worker needs the 'distributed' package (rigorbench's cluster extra): pip install 'distributed>=2024.8'\n"


def test_tls_security_without_distributed_is_a_missing_dependency(monkeypatch, tmp_path):
    files = []
    for name in ("ca.pem", "cert.pem", "key.pem"):
        (tmp_path / name).write_text("x")
        files.append(str(tmp_path / name))
    without(monkeypatch, "distributed")
    with pytest.raises(MissingDependency, match=r"pip install 'distributed>=2024\.8'"):
        TLSFiles(*files).security()


@pytest.mark.parametrize("command", [
    ["runs", "--store", "URL"],
    ["history", "list", "--store", "URL"],
    ["store", "check", "URL"],
    ["store", "copy", "SQLITE", "URL"],
])
def test_a_postgresql_store_without_psycopg_says_what_to_install(command, monkeypatch, tmp_path):
    from rigorbench.store import ResultStore

    sqlite = tmp_path / "r.db"
    ResultStore.open(sqlite).close()
    without(monkeypatch, "psycopg")
    url = "postgresql://ci:pw@db.example.org/bench"
    argv = [{"URL": url, "SQLITE": str(sqlite)}.get(word, word) for word in command]
    code, out, err = cli(*argv)
    assert (code, out) == (2, "")
    assert err == ("rigorbench: error: postgresql://ci:***@db.example.org/bench: a PostgreSQL results store needs "
                   "the 'psycopg' package (rigorbench's postgres extra): pip install 'psycopg[binary]>=3.1'\n")


def test_the_named_requirements_are_the_extras_of_pyproject():
    """What the messages tell users to install is what the extras install."""
    import tomllib

    from rigorbench.errors import EXTRAS

    extras = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert {name: [requirement] for name, requirement in EXTRAS.items()} == {name: extras[name] for name in EXTRAS}
