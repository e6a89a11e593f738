"""Find the JMH project(s) of a Gradle build and how to build their benchmark jar.

Gradle projects run JMH through the ``me.champeau.jmh`` plugin (``me.champeau.gradle.jmh``
before 0.6), whose ``jmhJar`` task writes a self-contained ``build/libs/*-jmh.jar``.
Build scripts are programs, not data, so a project is recognised by what its script names:
the plugin's id (also through a version-catalog alias ``libs.plugins.jmh``) or a task
called ``jmhJar``. The build runs with the project's wrapper (``./gradlew``), else the
``gradle`` on the PATH, always with ``--no-daemon``: a daemon left running would share the
machine with the measurements.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from rigorbench.errors import UserError
from rigorbench.harness.tools import pom_properties

SETTINGS = ("settings.gradle", "settings.gradle.kts")
SCRIPTS = ("build.gradle", "build.gradle.kts")
JAR_TASK = "jmhJar"
_JMH_PLUGIN = re.compile(r"""me\.champeau\.(?:gradle\.)?jmh|plugins\.jmh\b|\bjmhJar\b|id\s*\(?\s*["']jmh["']""")
_SKIP_DIRS = {"build", ".gradle", ".git", "node_modules", "out", "target", "src"}
_MAX_DEPTH = 4
# What the wrapper prints when it cannot fetch its distribution.
_OFFLINE = re.compile(r"UnknownHostException|ConnectException|Could not install Gradle distribution|"
                      r"NoRouteToHostException|SocketTimeoutException|Connection refused")


@dataclass(frozen=True)
class GradleProject:
    root: Path              # the directory with settings.gradle (or the single project)
    directory: Path         # the JMH project's directory
    task: str               # e.g. ":bench:jmhJar"

    @property
    def name(self) -> str:
        relative = self.directory.relative_to(self.root)
        return str(relative) if str(relative) != "." else self.directory.name


def is_gradle_project(directory: Path) -> bool:
    """A directory with a build or settings script, or inside a build that has settings
    (a subproject configured from the root script needs no script of its own)."""
    if any((directory / name).is_file() for name in (*SCRIPTS, *SETTINGS)):
        return True
    root = gradle_root(directory)
    return root != directory.resolve() and any((root / name).is_file() for name in SETTINGS)


def gradle_root(directory: Path) -> Path:
    """The nearest directory at or above ``directory`` with a settings script (else itself)."""
    directory = directory.resolve()
    for candidate in (directory, *directory.parents):
        if any((candidate / name).is_file() for name in SETTINGS):
            return candidate
    return directory


def _script(directory: Path) -> Path | None:
    return next((directory / n for n in SCRIPTS if (directory / n).is_file()), None)


def jmh_projects(root: Path) -> list[GradleProject]:
    """Projects under ``root`` whose build script applies the JMH plugin (sorted by path)."""
    found: list[GradleProject] = []

    def visit(directory: Path, depth: int) -> None:
        script = _script(directory)
        if script is not None and _JMH_PLUGIN.search(script.read_text(encoding="utf-8", errors="replace")):
            relative = directory.relative_to(root).parts
            task = ":" + ":".join((*relative, JAR_TASK)) if relative else JAR_TASK
            found.append(GradleProject(root, directory, task))
        if depth < _MAX_DEPTH:
            for child in sorted(directory.iterdir()):
                if child.is_dir() and child.name not in _SKIP_DIRS and not child.name.startswith("."):
                    visit(child, depth + 1)

    visit(root, 0)
    return found


def choose_project(project_dir: Path, wanted: str | None) -> GradleProject:
    """The JMH project PATH stands for (``--module`` chooses among several)."""
    project_dir = project_dir.resolve()
    root = gradle_root(project_dir)
    projects = jmh_projects(root)
    names = ", ".join(p.name for p in projects) or "none"
    if wanted is not None:
        for project in projects:
            if wanted.strip("/:") in {project.name, project.directory.name, project.task.rsplit(":", 1)[0].strip(":")}:
                return project
        raise UserError(f"{root}: no Gradle project {wanted!r} applies the JMH plugin (JMH projects: {names})")
    here = [p for p in projects if p.directory == project_dir]
    inside = here or [p for p in projects if p.directory.is_relative_to(project_dir)] or projects
    if not inside:
        raise UserError(
            f"{root}: no project of this Gradle build applies the JMH plugin (me.champeau.jmh); "
            "give --build-command and --jar"
        )
    if len(inside) > 1:
        raise UserError(f"{project_dir}: several JMH projects ({names}); choose one with --module NAME")
    return inside[0]


def gradle_command(root: Path) -> list[str]:
    """The project's wrapper, else ``gradle`` from the PATH; UserError when there is neither."""
    wrapper = root / "gradlew"
    if wrapper.is_file():
        return [str(wrapper)] if os.access(wrapper, os.X_OK) else ["sh", str(wrapper)]
    gradle = shutil.which("gradle")
    if gradle is None:
        raise UserError(
            f"{root}: a Gradle build without a wrapper (gradlew), and gradle is not on the PATH; "
            "install Gradle, or give --build-command"
        )
    return [gradle]


def build_arguments(project: GradleProject) -> list[str]:
    return ["-q", "--console=plain", "--no-daemon", project.task]


def wrapper_offline_hint(project: GradleProject | Path, output: str) -> str | None:
    """When a Gradle wrapper failed to download Gradle: what happened and how to build with a
    local Gradle. ``project`` is the JMH project, or the directory a given command ran in."""
    if not _OFFLINE.search(output) or "services.gradle.org" not in output and "org.gradle.wrapper" not in output:
        return None
    root = project.root if isinstance(project, GradleProject) else gradle_root(project)
    url = distribution_url(root) or "its Gradle distribution"
    arguments = " ".join(build_arguments(project)) if isinstance(project, GradleProject) else "-q --no-daemon TASK"
    return (
        f"the Gradle wrapper could not download {url} (no network?). Install that Gradle "
        f"version locally and build with it: --build-command \"/path/to/gradle {arguments}\" "
        "(or point distributionUrl in gradle/wrapper/gradle-wrapper.properties at a local copy)"
    )


def distribution_url(root: Path) -> str | None:
    path = root / "gradle" / "wrapper" / "gradle-wrapper.properties"
    try:
        values = pom_properties(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
    url = values.get("distributionUrl")
    return url.replace("\\:", ":") if url else None
