"""Versions of the tools a harness uses (java, maven), probed cheaply and cached per process.

Starting ``mvn -v`` costs most of a second (a JVM start), so the Maven version is read
from ``maven-core``'s ``pom.properties`` inside the installation that ``mvn`` on the PATH
belongs to, and only falls back to running ``mvn -v``; the Java version comes from the
JDK's ``release`` file, falling back to ``java -version``. Probes never raise: an unknown
version is None (or an empty dict).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

from rigorbench.errors import UserError
from rigorbench.harness.process import strip_ansi

PROBE_TIMEOUT_S = 20.0
_JAVA_VERSION = re.compile(r'version "([^"]+)"')
_MAVEN_VERSION = re.compile(r"Apache Maven (\S+)")
_RELEASE_LINE = re.compile(r'([A-Z_]+)="?(.*?)"?$')


@functools.lru_cache(maxsize=None)
def java_version(java: str = "java") -> dict[str, str]:
    """``{"java": "17.0.15", "java_runtime": "17.0.15+6-...", "java_vendor": "Debian"}`` (what is known)."""
    executable = shutil.which(java)
    if executable is None:
        return {}
    info = _java_release(Path(executable).resolve().parent.parent / "release")
    return info or _java_dash_version(executable)


def _java_release(path: Path) -> dict[str, str]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    values = dict(match.groups() for line in text.splitlines() if (match := _RELEASE_LINE.match(line.strip())))
    fields = {"java": "JAVA_VERSION", "java_runtime": "JAVA_RUNTIME_VERSION", "java_vendor": "IMPLEMENTOR"}
    return {key: values[field] for key, field in fields.items() if values.get(field)}


def _java_dash_version(executable: str) -> dict[str, str]:
    output = _probe([executable, "-version"])
    match = _JAVA_VERSION.search(output)
    if not match:
        return {}
    info = {"java": match.group(1)}
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if len(lines) > 1:
        info["java_runtime"] = lines[1]
    return info


@functools.lru_cache(maxsize=None)
def maven_version(mvn: str = "mvn") -> str | None:
    """The version of the Maven that ``mvn`` runs ("3.8.7"), or None."""
    executable = shutil.which(mvn)
    if executable is None:
        return None
    home = Path(executable).resolve().parent.parent
    return _maven_core_version(home) or _maven_dash_version(executable)


def _maven_core_version(home: Path) -> str | None:
    for jar in sorted((home / "lib").glob("maven-core*.jar")):
        try:
            with zipfile.ZipFile(jar) as archive:
                text = archive.read("META-INF/maven/org.apache.maven/maven-core/pom.properties")
        except (OSError, KeyError, zipfile.BadZipFile):
            continue
        return pom_properties(text.decode("utf-8", "replace")).get("version")
    return None


def _maven_dash_version(executable: str) -> str | None:
    match = _MAVEN_VERSION.search(strip_ansi(_probe([executable, "-B", "-v"])))
    return match.group(1) if match else None


def pom_properties(text: str) -> dict[str, str]:
    """``key=value`` lines of a Maven ``pom.properties`` (comments skipped)."""
    values = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "!")) and "=" in line:
            key, value = line.split("=", 1)
            values[key.strip()] = value.strip()
    return values


def _probe(command: list[str]) -> str:
    """Merged output of a short version command; empty on any failure."""
    try:
        done = subprocess.run(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            timeout=PROBE_TIMEOUT_S, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.decode("utf-8", "replace")


def resolve_java(given: str) -> tuple[Path, Path]:
    """``(java_home, java_executable)`` for ``--java PATH`` / ``java_home``: a JDK home
    (holding ``bin/java``) or a ``java`` executable. Raises UserError when there is none."""
    path = Path(given).expanduser()
    executable = path / "bin" / "java" if path.is_dir() else path
    if not executable.is_file() or not os.access(executable, os.X_OK):
        found = shutil.which(given) if not path.is_dir() and os.sep not in given else None
        if found is None:
            raise UserError(f"JDK not found: {given} is neither a JDK home (with bin/java) nor a java executable")
        executable = Path(found)
    executable = executable.resolve()
    return executable.parent.parent, executable
