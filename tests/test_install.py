"""rigorbench installs without the repository: the wheel and sdist that ``python -m build``
makes hold what they must, and the wheel, installed into a fresh venv, works from any
directory.

The fresh venv gets no dependencies from the network: it sees the test environment's
site-packages (numpy, scipy, ...) through a ``.pth`` file and the wheel is installed with
``--no-deps``. Building does fetch the build backend (setuptools) once, as any build does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
JMH = ROOT / "tests" / "testdata" / "jmh"
COMPARE_PAGE = (ROOT / "docs" / "compare.md").read_text(encoding="utf-8")   # its example of one trial per side
VERSION = "0.1.0"

pytest.importorskip("build", reason="the 'build' package is a test extra: 'make test' installs it")

# python -m build and pip into a fresh venv: real tools, the full suite only (tests/tiers.py).
pytestmark = pytest.mark.e2e


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    """Wheel and sdist built from a copy of the project's packaging inputs (so the checkout
    gets no build/ or egg-info), the wheel made from the sdist as ``python -m build`` does."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in"):
        if (ROOT / name).exists():
            shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    out = tmp_path_factory.mktemp("dist")
    done = _run([sys.executable, "-m", "build", "--outdir", str(out), str(source)], cwd=source)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # setuptools' deprecation banners (the license table form printed one per build step).
    assert "deprecat" not in done.stderr.lower() and "BuildBackendWarning" not in done.stderr, done.stderr
    return out


def _python_files() -> set[str]:
    package = ROOT / "src"
    return {p.relative_to(package).as_posix() for p in package.joinpath("rigorbench").rglob("*.py")}


def test_the_sdist_holds_the_readme_the_metadata_and_every_source_file(dist):
    (sdist,) = dist.glob(f"rigorbench-{VERSION}.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"README.md", "pyproject.toml", "PKG-INFO"} <= names
    if (ROOT / "LICENSE").exists():
        assert "LICENSE" in names
    assert {f"src/{name}" for name in _python_files()} <= names


def test_the_wheel_holds_the_package_and_no_tests(dist):
    (wheel,) = dist.glob(f"rigorbench-{VERSION}-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(f"rigorbench-{VERSION}.dist-info/METADATA").decode()
    assert _python_files() <= names
    assert all(name.startswith(("rigorbench/", f"rigorbench-{VERSION}.dist-info/")) for name in names), sorted(names)
    assert not any("test" in part for name in names for part in name.split("/")[:-1])
    assert "License-Expression: Apache-2.0" in metadata
    assert "rigorbench = rigorbench.cli:entry_point" in archive_entry_points(wheel)


def archive_entry_points(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as archive:
        return archive.read(f"rigorbench-{VERSION}.dist-info/entry_points.txt").decode()


@pytest.fixture(scope="module")
def installed(dist, tmp_path_factory) -> Path:
    """A fresh venv with the wheel installed, its dependencies taken from this environment."""
    venv = tmp_path_factory.mktemp("venv") / "venv"
    made = _run([sys.executable, "-m", "venv", str(venv)], cwd=venv.parent)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    target = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=venv.parent)
    here = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(target.stdout.strip(), "dependencies-of-the-test-venv.pth").write_text("\n".join(sorted(here)) + "\n")
    (wheel,) = dist.glob("*.whl")
    done = _run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)], cwd=venv.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    return venv


def test_the_installed_wheel_runs_from_outside_the_repository(installed, tmp_path):
    where = _run([str(installed / "bin" / "python"), "-c", "import rigorbench; print(rigorbench.__file__)"], cwd=tmp_path)
    assert Path(where.stdout.strip()).is_relative_to(installed)   # the wheel's copy, not the checkout's
    version = _run([str(installed / "bin" / "rigorbench"), "--version"], cwd=tmp_path)
    assert (version.returncode, version.stdout.strip()) == (0, f"rigorbench {VERSION}")


def test_the_installed_wheel_compares_as_the_readme_shows(installed, tmp_path):
    block = COMPARE_PAGE.split("<!-- quickstart:compare -->", 1)[1].split("```console\n", 1)[1].split("```", 1)[0]
    command, expected = block.split("\n", 1)
    shutil.copytree(JMH, tmp_path / "tests" / "testdata" / "jmh")   # the example's relative paths, outside the checkout
    argv = command.removeprefix("$ ").split()
    done = _run([str(installed / "bin" / argv[0]), *argv[1:]], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected
