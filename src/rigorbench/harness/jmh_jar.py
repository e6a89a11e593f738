"""Find a project's JMH benchmark jar and read what it says about itself.

Builds name their benchmark jar freely: the JMH archetype's ``benchmarks.jar``, netty's and
JCTools' ``microbenchmarks.jar``, the Gradle plugin's ``*-jmh.jar``, shaded jars with a
classifier. So a jar is recognised by what it holds, not by its name: its manifest runs
``org.openjdk.jmh.Main`` (run it with ``java -jar``), or it holds ``META-INF/BenchmarkList``
together with JMH itself (run it with ``java -cp JAR org.openjdk.jmh.Main``). A jar that
holds benchmarks but not JMH (the module jar before shading) cannot run alone and is not
taken. The JMH version comes from the ``pom.properties`` that the shade plugin copies into
the jar, or from the name of a ``jmh-core-X.jar`` the jar contains or puts on its
``Class-Path``.
"""

from __future__ import annotations

import glob
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from rigorbench.harness.base import HarnessError
from rigorbench.harness.tools import pom_properties

JMH_MAIN = "org.openjdk.jmh.Main"
BENCHMARK_LIST = "META-INF/BenchmarkList"
_JMH_MAIN_CLASS = "org/openjdk/jmh/Main.class"
_JMH_CORE_POM = "META-INF/maven/org.openjdk.jmh/jmh-core/pom.properties"
_JMH_CORE_JAR = re.compile(r"(?:^|[/\s])jmh-core-(\d[\w.-]*?)\.jar(?=$|\s)")
# Build by-products that are never the benchmark jar.
_NOT_BENCHMARKS = re.compile(r"^original-|-(sources|javadoc|tests|test-sources)\.jar$")
# Among several runnable jars, these names win, in this order.
_PREFERRED = (re.compile(r"^benchmarks\.jar$"), re.compile(r"^microbenchmarks\.jar$"), re.compile(r"-jmh\.jar$"))


@dataclass(frozen=True)
class BenchmarkJar:
    path: Path
    main_class: str | None    # None: ``java -jar``; else ``java -cp JAR main_class``


def runnable_as_benchmarks(jar: Path) -> BenchmarkJar | None:
    """How ``jar`` runs JMH, or None when it cannot on its own."""
    try:
        with zipfile.ZipFile(jar) as archive:
            names = set(archive.namelist())
    except (OSError, zipfile.BadZipFile):
        return None
    manifest = read_manifest(jar)
    if manifest.get("Main-Class") == JMH_MAIN and (_JMH_MAIN_CLASS in names or manifest.get("Class-Path")):
        return BenchmarkJar(jar, None)
    if BENCHMARK_LIST in names and _JMH_MAIN_CLASS in names:
        return BenchmarkJar(jar, JMH_MAIN)
    return None  # e.g. a jar that names JMH's main class but does not carry JMH


def _pick(runnable: list[BenchmarkJar], where: str) -> BenchmarkJar:
    if len(runnable) == 1:
        return runnable[0]
    for pattern in _PREFERRED:
        named = [jar for jar in runnable if pattern.search(jar.path.name)]
        if len(named) == 1:
            return named[0]
    names = ", ".join(sorted(jar.path.name for jar in runnable))
    raise HarnessError(f"{where}: several JMH jars ({names}); choose one with --jar")


def find_benchmarks_jar(directories: Sequence[Path]) -> BenchmarkJar:
    """The one JMH jar in ``directories`` (e.g. ``target/``, ``build/libs/``)."""
    jars = [jar for d in directories if d.is_dir() for jar in sorted(d.glob("*.jar"))]
    candidates = [jar for jar in jars if not _NOT_BENCHMARKS.search(jar.name)]
    runnable = [r for jar in candidates if (r := runnable_as_benchmarks(jar)) is not None]
    where = " or ".join(str(d) for d in directories) or "nowhere"
    if runnable:
        return _pick(runnable, where)
    found = ", ".join(jar.name for jar in jars) or "no jars"
    raise HarnessError(
        f"{where}: no JMH benchmark jar (found {found}); the build must make a jar that runs "
        f"{JMH_MAIN} (as the JMH archetype's benchmarks.jar), or name it with --jar"
    )


def jar_from_pattern(pattern: str, base: Path) -> BenchmarkJar:
    """``--jar PATH-OR-GLOB`` (relative to ``base``): the JMH jar it names."""
    full = pattern if Path(pattern).is_absolute() else str(base / pattern)
    matches = [Path(m) for m in sorted(glob.glob(full, recursive=True)) if Path(m).is_file()]
    if not matches:
        raise HarnessError(f"--jar {pattern}: no file matches in {base}")
    runnable = [r for jar in matches if (r := runnable_as_benchmarks(jar)) is not None]
    if not runnable:
        names = ", ".join(m.name for m in matches)
        raise HarnessError(
            f"--jar {pattern}: {names} neither runs {JMH_MAIN} nor holds {BENCHMARK_LIST} with JMH itself"
        )
    return _pick(runnable, f"--jar {pattern}")


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
