"""Finding the benchmark module and the build command from a project's own build files."""

from __future__ import annotations

from pathlib import Path

import pytest

from rigorbench.errors import InputError, UserError
from rigorbench.harness import gradle, maven
from rigorbench.harness.base import BuildSpec
from rigorbench.harness.jmh_layout import plan_build

NS = 'xmlns="http://maven.apache.org/POM/4.0.0"'
JMH_DEP = "<dependency><groupId>org.openjdk.jmh</groupId><artifactId>jmh-core</artifactId></dependency>"


def pom(path: Path, artifact: str, *, modules=(), deps="", packaging="jar", parent: str | None = "parent", ns=True) -> Path:
    parent_xml = f"<parent><groupId>g</groupId><artifactId>{parent}</artifactId><version>1</version></parent>" if parent else "<groupId>g</groupId>"
    listed = "".join(f"<module>{m}</module>" for m in modules)
    path.mkdir(parents=True, exist_ok=True)
    (path / "pom.xml").write_text(
        f"<project {NS if ns else ''}>{parent_xml}<artifactId>{artifact}</artifactId><packaging>{packaging}</packaging>"
        f"<modules>{listed}</modules><dependencies>{deps}</dependencies>"
        # dependencyManagement declares versions, not dependencies: never a reason to be a JMH module
        f"<dependencyManagement><dependencies>{JMH_DEP}</dependencies></dependencyManagement></project>"
    )
    return path


@pytest.fixture
def reactor(tmp_path) -> Path:
    """root -> core, perf/bench (JMH), tools -> gen; 'shared' inherits jmh-core from 'perf-parent'."""
    root = pom(tmp_path / "repo", "parent", modules=["core", "perf", "tools"], packaging="pom", parent=None)
    pom(root / "core", "core")
    pom(root / "perf", "perf-parent", modules=["bench", "inherits"], packaging="pom", deps=JMH_DEP)
    pom(root / "perf" / "bench", "my-benchmarks", deps=JMH_DEP, ns=False)
    pom(root / "perf" / "inherits", "inherits", parent="perf-parent")
    pom(root / "tools", "tools", modules=["gen/pom.xml"], packaging="pom")
    pom(root / "tools" / "gen", "gen")
    return root


def test_pom_is_read_with_or_without_namespace(reactor):
    bench = maven.read_pom(reactor / "perf" / "bench" / "pom.xml")
    assert (bench.group_id, bench.artifact_id, bench.packaging) == ("g", "my-benchmarks", "jar")
    assert maven.JMH_CORE in bench.dependencies and bench.parent == ("g", "parent")
    root = maven.read_pom(reactor / "pom.xml")
    assert root.modules == ("core", "perf", "tools") and maven.JMH_CORE not in root.dependencies


def test_jmh_modules_are_found_from_the_poms_including_inherited_dependencies(reactor):
    poms = maven.reactor_poms(reactor)
    assert [p.artifact_id for p in poms] == ["parent", "core", "perf-parent", "my-benchmarks", "inherits", "tools", "gen"]
    assert [p.artifact_id for p in maven.jmh_modules(poms)] == ["my-benchmarks", "inherits"]


@pytest.mark.parametrize("start", [".", "core", "perf/bench", "tools/gen"])
def test_reactor_root_is_found_from_any_module(reactor, start):
    assert maven.reactor_root(reactor / start) == reactor.resolve()


def test_module_choice(reactor):
    with pytest.raises(UserError, match=r"several JMH modules \(perf/bench, perf/inherits\); choose one with --module NAME"):
        maven.choose_module(reactor, None)
    for wanted in ("perf/bench", "bench", "my-benchmarks"):
        assert maven.choose_module(reactor, wanted)[1].artifact_id == "my-benchmarks"
    assert maven.choose_module(reactor / "perf" / "inherits", None)[1].artifact_id == "inherits"
    with pytest.raises(UserError, match=r"no module 'nope' in this Maven build \(JMH modules: perf/bench, perf/inherits\)"):
        maven.choose_module(reactor, "nope")


def test_multi_module_build_runs_from_the_root_with_pl_and_am(reactor):
    layout = plan_build(reactor / "perf" / "bench", BuildSpec())
    assert layout.cwd == reactor.resolve()
    assert layout.command == ("mvn", "-B", "-q", "-DskipTests", "-pl", "perf/bench", "-am", "package")
    assert layout.jar_dirs == (reactor.resolve() / "perf" / "bench" / "target",)


def test_single_project_builds_in_place(tmp_path):
    project = pom(tmp_path / "p", "bench", deps=JMH_DEP, parent=None)
    layout = plan_build(project, BuildSpec())
    assert (layout.cwd, layout.command, layout.module) == (project.resolve(), ("mvn", "-B", "-q", "-DskipTests", "package"), None)


def test_no_jmh_module_is_an_error_that_names_the_ways_out(tmp_path):
    root = pom(tmp_path / "r", "parent", modules=["lib"], packaging="pom", parent=None)
    pom(root / "lib", "lib")
    with pytest.raises(UserError, match=r"no module of this Maven build depends on org.openjdk.jmh:jmh-core \(2 POMs read\); name the module with --module"):
        plan_build(root, BuildSpec())


def test_broken_pom_names_file_and_line(tmp_path):
    (tmp_path / "pom.xml").write_text("<project>\n  <artifactId>x</artifactId>\n  <oops>\n</project>\n")
    with pytest.raises(InputError) as error:
        plan_build(tmp_path, BuildSpec())
    assert str(error.value).startswith(f"{tmp_path / 'pom.xml'}:4: not valid XML")


def test_custom_command_runs_in_path_and_looks_for_the_jar_where_the_module_puts_it(reactor):
    layout = plan_build(reactor, BuildSpec(command=("./build.sh", "bench"), module="bench"))
    assert (layout.tool, layout.cwd, layout.command) == ("command", reactor.resolve(), ("./build.sh", "bench"))
    assert layout.jar_dirs[0] == reactor.resolve() / "perf" / "bench" / "target"
    # Ambiguous or unknown layouts still give PATH's own target/ and build/libs/.
    assert plan_build(reactor, BuildSpec(command=("make",))).jar_dirs == (reactor.resolve() / "target", reactor.resolve() / "build" / "libs")


# -- Gradle ------------------------------------------------------------------------------------


def gradle_build(tmp_path: Path) -> Path:
    root = tmp_path / "g"
    (root / "lib").mkdir(parents=True)
    (root / "benchmarks" / "micro").mkdir(parents=True)
    (root / "perf").mkdir()
    (root / "settings.gradle.kts").write_text('include("lib", "benchmarks:micro", "perf")\n')
    (root / "build.gradle.kts").write_text("plugins { java }\n")
    (root / "lib" / "build.gradle.kts").write_text("plugins { `java-library` }\n")
    (root / "benchmarks" / "micro" / "build.gradle.kts").write_text('plugins {\n  id("me.champeau.jmh") version "0.7.2"\n}\n')
    (root / "perf" / "build.gradle").write_text("plugins {\n  alias(libs.plugins.jmh)\n}\n")
    return root


def test_gradle_jmh_projects_are_those_that_apply_the_plugin(tmp_path):
    root = gradle_build(tmp_path)
    found = gradle.jmh_projects(root)
    assert [(p.name, p.task) for p in found] == [("benchmarks/micro", ":benchmarks:micro:jmhJar"), ("perf", ":perf:jmhJar")]
    with pytest.raises(UserError, match=r"several JMH projects \(benchmarks/micro, perf\); choose one with --module NAME"):
        gradle.choose_project(root, None)
    assert gradle.choose_project(root / "perf", None).task == ":perf:jmhJar"
    assert gradle.choose_project(root, "micro").task == ":benchmarks:micro:jmhJar"
    assert gradle.choose_project(root, ":benchmarks:micro").task == ":benchmarks:micro:jmhJar"


def test_gradle_build_uses_the_wrapper_without_a_daemon(tmp_path, monkeypatch):
    root = gradle_build(tmp_path)
    (root / "gradlew").write_text("#!/bin/sh\n")
    layout = plan_build(root / "perf", BuildSpec())
    assert layout.command == ("sh", str(root.resolve() / "gradlew"), "-q", "--console=plain", "--no-daemon", ":perf:jmhJar")
    assert layout.cwd == root.resolve() and layout.jar_dirs == (root.resolve() / "perf" / "build" / "libs",)
    (root / "gradlew").chmod(0o755)
    assert plan_build(root / "perf", BuildSpec()).command[0] == str(root.resolve() / "gradlew")


def test_single_gradle_project_and_missing_gradle(tmp_path, monkeypatch):
    (tmp_path / "build.gradle").write_text("plugins { id 'me.champeau.gradle.jmh' version '0.5.3' }\n")
    monkeypatch.setattr(gradle.shutil, "which", lambda name: "/opt/gradle/bin/gradle" if name == "gradle" else None)
    layout = plan_build(tmp_path, BuildSpec())
    assert layout.command == ("/opt/gradle/bin/gradle", "-q", "--console=plain", "--no-daemon", "jmhJar")
    monkeypatch.setattr(gradle.shutil, "which", lambda name: None)
    with pytest.raises(UserError, match="a Gradle build without a wrapper"):
        plan_build(tmp_path, BuildSpec())
    (tmp_path / "build.gradle").write_text("plugins { id 'java' }\n")
    with pytest.raises(UserError, match="no project of this Gradle build applies the JMH plugin"):
        plan_build(tmp_path, BuildSpec())


def test_offline_wrapper_failure_is_explained(tmp_path):
    root = gradle_build(tmp_path)
    props = root / "gradle" / "wrapper" / "gradle-wrapper.properties"
    props.parent.mkdir(parents=True)
    props.write_text("distributionUrl=https\\://services.gradle.org/distributions/gradle-8.10-bin.zip\n")
    project = gradle.choose_project(root, "perf")
    output = "Downloading https://services.gradle.org/distributions/gradle-8.10-bin.zip\njava.net.UnknownHostException: services.gradle.org\n"
    hint = gradle.wrapper_offline_hint(project, output)
    assert hint.startswith("the Gradle wrapper could not download https://services.gradle.org/distributions/gradle-8.10-bin.zip (no network?)")
    assert '--build-command "/path/to/gradle -q --console=plain --no-daemon :perf:jmhJar"' in hint
    assert gradle.wrapper_offline_hint(project, "error: cannot find symbol\n") is None


def test_maven_advice_is_left_out_of_a_failed_builds_tail():
    output = [
        "[ERROR] /w/Core.java:[9,19] ';' expected", "[ERROR] -> [Help 1]", "[ERROR] ",
        "[ERROR] To see the full stack trace of the errors, re-run Maven with the -e switch.",
        "[ERROR] Re-run Maven using the -X switch to enable full debug logging.", "[ERROR]",
        "[ERROR] For more information about the errors and possible solutions, please read the following articles:",
        "[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/MojoFailureException",
        "[ERROR] After correcting the problems, you can resume the build with the command",
        "[ERROR]   mvn <args> -rf :core",
    ]
    assert maven.without_advice(output) == ["[ERROR] /w/Core.java:[9,19] ';' expected"]


def test_module_given_as_a_path_and_ambiguous_names(reactor):
    assert maven.choose_module(reactor, "./perf/bench/")[1].artifact_id == "my-benchmarks"
    pom(reactor / "tools" / "bench", "tool-bench", deps=JMH_DEP)
    tools = maven.read_pom(reactor / "tools" / "pom.xml")
    (reactor / "tools" / "pom.xml").write_text((reactor / "tools" / "pom.xml").read_text().replace(
        "<module>gen/pom.xml</module>", "<module>gen/pom.xml</module><module>bench</module>"))
    assert tools.artifact_id == "tools"
    with pytest.raises(UserError, match=r"--module 'bench' names several modules \(perf/bench, tools/bench\); give its path from the root"):
        maven.choose_module(reactor, "bench")
    assert maven.choose_module(reactor, "tools/bench")[1].artifact_id == "tool-bench"


def test_a_jmh_project_beside_the_build_is_pointed_out(tmp_path):
    """HdrHistogram's layout: the library's POM has no modules; the benchmarks are a project of their own."""
    root = pom(tmp_path / "hdr", "lib", parent=None)
    pom(root / "lib-benchmarks", "lib-benchmarks", deps=JMH_DEP, parent=None)
    with pytest.raises(UserError, match=r"\(1 POM read\).*; lib-benchmarks uses JMH but is not a module of it: give that directory as PATH"):
        plan_build(root, BuildSpec())
    assert plan_build(root / "lib-benchmarks", BuildSpec()).cwd == (root / "lib-benchmarks").resolve()


def test_a_gradle_subproject_without_a_script_of_its_own_is_still_gradle(tmp_path):
    root = gradle_build(tmp_path)
    (root / "configured-from-root").mkdir()
    assert gradle.is_gradle_project(root / "configured-from-root")
    assert not gradle.is_gradle_project(tmp_path)


def test_offline_hint_for_a_given_gradle_command(tmp_path):
    root = gradle_build(tmp_path)
    output = "Exception in thread \"main\" java.net.UnknownHostException: services.gradle.org\n\tat org.gradle.wrapper.Download"
    hint = gradle.wrapper_offline_hint(root / "perf", output)
    assert hint.startswith("the Gradle wrapper could not download its Gradle distribution (no network?)")
    assert '"/path/to/gradle -q --no-daemon TASK"' in hint
