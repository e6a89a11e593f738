"""Find a project's JMH benchmark jar and read what it says about itself.

The JMH archetype builds a self-contained ``target/benchmarks.jar``; other builds name the
shaded jar differently, so any single ``target/*.jar`` whose manifest ``Main-Class`` is
``org.openjdk.jmh.Main`` will do. The JMH version comes from the ``pom.properties`` that
the shade plugin copies into the jar, or from the name of a ``jmh-core-X.jar`` the jar
contains or puts on its ``Class-Path``.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from rigorbench.harness.base import HarnessError
from rigorbench.harness.tools import pom_properties

JMH_MAIN = "org.openjdk.jmh.Main"
PREFERRED_JAR = Path("target") / "benchmarks.jar"
_JMH_CORE_POM = "META-INF/maven/org.openjdk.jmh/jmh-core/pom.properties"
_JMH_CORE_JAR = re.compile(r"(?:^|[/\s])jmh-core-(\d[\w.-]*?)\.jar(?=$|\s)")


def find_benchmarks_jar(project_dir: Path) -> Path:
    """``target/benchmarks.jar``, else the single ``target/*.jar`` with JMH's main class."""
    preferred = project_dir / PREFERRED_JAR
    if preferred.is_file():
        return preferred
    target = project_dir / "target"
    jars = sorted(target.glob("*.jar")) if target.is_dir() else []
    runnable = [jar for jar in jars if main_class(jar) == JMH_MAIN]
    if len(runnable) == 1:
        return runnable[0]
    if runnable:
        names = ", ".join(jar.name for jar in runnable)
        raise HarnessError(f"{target}: several JMH jars ({names}); keep one or name it benchmarks.jar")
    found = ", ".join(jar.name for jar in jars) or "no jars"
    raise HarnessError(
        f"{target}: no JMH benchmark jar (found {found}); the build must produce a jar whose "
        f"Main-Class is {JMH_MAIN}, as the JMH archetype's benchmarks.jar"
    )


def read_manifest(jar: Path) -> dict[str, str]:
    """The main section of ``META-INF/MANIFEST.MF`` (continuation lines joined); {} if unreadable."""
    try:
        with zipfile.ZipFile(jar) as archive:
            text = archive.read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    except (OSError, KeyError, zipfile.BadZipFile):
        return {}
    headers: dict[str, str] = {}
    last = None
    for line in text.splitlines():
        if not line:
            break  # the main section ends at the first blank line
        if line.startswith(" ") and last is not None:
            headers[last] += line[1:]
        elif ":" in line:
            last, value = line.split(":", 1)
            headers[last] = value.strip()
    return headers


def main_class(jar: Path) -> str | None:
    return read_manifest(jar).get("Main-Class")


def jmh_version(jar: Path) -> str | None:
    """The JMH version the jar runs, or None if it does not say."""
    try:
        with zipfile.ZipFile(jar) as archive:
            names = archive.namelist()
            if _JMH_CORE_POM in names:
                text = archive.read(_JMH_CORE_POM).decode("utf-8", "replace")
                version = pom_properties(text).get("version")
                if version:
                    return version
    except (OSError, zipfile.BadZipFile):
        return None
    for text in (*names, read_manifest(jar).get("Class-Path", "")):
        match = _JMH_CORE_JAR.search(text)
        if match:
            return match.group(1)
    return None
