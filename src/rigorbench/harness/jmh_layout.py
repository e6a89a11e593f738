"""How a version's JMH benchmarks are built: which command, where, and where the jar lands.

Inferred from the project (``pom.xml``: Maven, the JMH module found in the POMs;
``build.gradle[.kts]``/``settings.gradle[.kts]``: Gradle with the JMH plugin), or given by
the user (``--build-command``, ``--jar``, ``--module``) where rigorbench cannot infer it.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from rigorbench.errors import UserError
from rigorbench.harness import gradle, maven
from rigorbench.harness.base import BuildSpec

MAVEN_OPTIONS = ("-B", "-q", "-DskipTests")


@dataclass(frozen=True)
class BuildLayout:
    tool: str                       # "maven", "gradle" or "command"
    cwd: Path                       # where the command runs
    command: tuple[str, ...]
    jar_dirs: tuple[Path, ...]      # where the benchmark jar is looked for
    module: str | None = None       # the benchmark module, as named to the user
    gradle_project: gradle.GradleProject | None = None


def plan_build(project_dir: Path, spec: BuildSpec) -> BuildLayout:
    """The build of the project at ``project_dir`` (one version's checkout)."""
    project_dir = project_dir.resolve()
    if spec.command is not None:
        if not spec.command:
            raise UserError("--build-command must not be empty")
        return BuildLayout("command", project_dir, tuple(spec.command), _jar_dirs_near(project_dir, spec.module))
    if (project_dir / maven.POM).is_file():
        return _maven_layout(project_dir, spec.module)
    if gradle.is_gradle_project(project_dir):
        return _gradle_layout(project_dir, spec.module)
    raise UserError(
        f"{project_dir}: neither a Maven project (pom.xml) nor a Gradle project (build.gradle); "
        "give --build-command CMD and --jar PATH"
    )


def _maven_layout(project_dir: Path, wanted: str | None) -> BuildLayout:
    root, module, poms = maven.choose_module(project_dir, wanted)
    if module is None:
        raise UserError(
            f"{root}: no module of this Maven build depends on org.openjdk.jmh:jmh-core "
            f"({len(poms)} POM{'s' if len(poms) != 1 else ''} read); name the module with --module, "
            f"or give --build-command and --jar{maven.outside_hint(root, poms)}"
        )
    mvn = _maven_executable(root)
    if module.directory == root and not module.modules:  # a single project: build it in place
        return BuildLayout("maven", root, (*mvn, *MAVEN_OPTIONS, "package"), (module.directory / "target",))
    # -pl MODULE -am: build the module and the siblings it needs from this checkout.
    name = maven.module_name(module, root)
    command = (*mvn, *MAVEN_OPTIONS, "-pl", name, "-am", "package")
    return BuildLayout("maven", root, command, (module.directory / "target",), module=name)


def _maven_executable(root: Path) -> tuple[str, ...]:
    """``mvn`` from the PATH; the project's Maven wrapper only when there is no ``mvn``."""
    if shutil.which("mvn"):
        return ("mvn",)
    wrapper = root / "mvnw"
    if wrapper.is_file():
        return ("sh", str(wrapper))
    raise UserError(f"{root}: Maven is not installed (no mvn on the PATH and no ./mvnw); install Maven or give --build-command")


def _gradle_layout(project_dir: Path, wanted: str | None) -> BuildLayout:
    project = gradle.choose_project(project_dir, wanted)
    command = (*gradle.gradle_command(project.root), *gradle.build_arguments(project))
    module = project.name if project.directory != project.root else None
    return BuildLayout("gradle", project.root, command, (project.directory / "build" / "libs",), module, project)


def _jar_dirs_near(project_dir: Path, wanted: str | None) -> tuple[Path, ...]:
    """Where a custom build's jar may be: the inferred module's output, else PATH's own."""
    dirs = []
    try:
        if (project_dir / maven.POM).is_file():
            dirs.extend(_maven_layout(project_dir, wanted).jar_dirs)
        elif gradle.is_gradle_project(project_dir):
            dirs.extend(_gradle_layout(project_dir, wanted).jar_dirs)
    except UserError:
        pass  # a custom build need not be one we understand
    for default in (project_dir / "target", project_dir / "build" / "libs"):
        if default not in dirs:
            dirs.append(default)
    return tuple(dirs)
