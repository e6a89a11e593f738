"""Small real JMH projects in the layouts real projects use, made by the tests in git repos.

- ``multi_module``: a Maven reactor (``core`` + ``bench``), the benchmark module depends on
  the sibling SNAPSHOT module of the same version and names its jar ``microbenchmarks.jar``.
  Commit 1 has a slow ``Core.work``; commit 2 makes it 4x cheaper (a planted improvement
  that only shows if each commit's own ``core`` is built) and adds a benchmark only it has.
- ``two_jmh_modules``: a reactor with two JMH modules (``--module`` must choose).
- ``gradle_multi``: a Gradle build whose ``bench`` project makes ``build/libs/bench-jmh.jar``
  with a ``jmhJar`` task (the plugin-less form that Debian's Gradle 4.4 can build offline).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

JMH = "1.37"
GROUP = "dev.rigorbench.fixture"

CORE_JAVA = """package dev.rigorbench.fixture.core;

public final class Core {
    private Core() {}

    public static long work(int n) {
        long sum = 0;
        for (int i = 0; i < n * %(rounds)d; i++) {
            sum += Long.numberOfTrailingZeros(i * 2654435761L) ^ (sum >>> 3);
        }
        return sum;
    }
}
"""

BENCH_JAVA = """package dev.rigorbench.fixture.bench;

import dev.rigorbench.fixture.core.Core;
import org.openjdk.jmh.annotations.*;

@State(Scope.Benchmark)
public class CoreBenchmark {
    @Param({"2000"})
    public int size;

    @Benchmark
    public long work() {
        return Core.work(size);
    }
}
"""

NEW_BENCH_JAVA = """package dev.rigorbench.fixture.bench;

import org.openjdk.jmh.annotations.*;

@State(Scope.Benchmark)
public class NewBenchmark {
    public int x = 7;

    @Benchmark
    public int fresh() {
        return Integer.rotateLeft(x, 3);
    }
}
"""

SIMPLE_BENCH_JAVA = """package dev.rigorbench.fixture.%(pkg)s;

import org.openjdk.jmh.annotations.*;

@State(Scope.Benchmark)
public class %(cls)s {
    public int x = 7;

    @Benchmark
    public int spin() {
        return Integer.rotateLeft(x, 5) * 31;
    }
}
"""


def _pom(artifact: str, packaging: str = "jar", body: str = "", parent: bool = True) -> str:
    head = f"<parent><groupId>{GROUP}</groupId><artifactId>parent</artifactId><version>1.0-SNAPSHOT</version></parent>" if parent else f"<groupId>{GROUP}</groupId><version>1.0-SNAPSHOT</version>"
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  {head}
  <artifactId>{artifact}</artifactId>
  <packaging>{packaging}</packaging>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>17</maven.compiler.release>
  </properties>
{body}
</project>
"""


def _aggregator(modules: list[str]) -> str:
    listed = "".join(f"<module>{m}</module>" for m in modules)
    plugins = ("  <build><pluginManagement><plugins><plugin><groupId>org.apache.maven.plugins</groupId>"
               "<artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>"
               "<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-jar-plugin</artifactId>"
               "<version>3.4.1</version></plugin></plugins></pluginManagement></build>")
    return _pom("parent", "pom", f"  <modules>{listed}</modules>\n{plugins}", parent=False)


def _jmh_module(artifact: str, jar_name: str, extra_dependency: str = "") -> str:
    body = f"""  <dependencies>
    {extra_dependency}
    <dependency><groupId>org.openjdk.jmh</groupId><artifactId>jmh-core</artifactId><version>{JMH}</version></dependency>
    <dependency><groupId>org.openjdk.jmh</groupId><artifactId>jmh-generator-annprocess</artifactId><version>{JMH}</version><scope>provided</scope></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version>
      <configuration><annotationProcessorPaths><path><groupId>org.openjdk.jmh</groupId><artifactId>jmh-generator-annprocess</artifactId><version>{JMH}</version></path></annotationProcessorPaths></configuration></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-shade-plugin</artifactId><version>3.6.0</version>
      <executions><execution><phase>package</phase><goals><goal>shade</goal></goals><configuration>
        <finalName>{jar_name}</finalName><createDependencyReducedPom>false</createDependencyReducedPom>
        <transformers><transformer implementation="org.apache.maven.plugins.shade.resource.ManifestResourceTransformer"><mainClass>org.openjdk.jmh.Main</mainClass></transformer></transformers>
        <filters><filter><artifact>*:*</artifact><excludes><exclude>META-INF/*.SF</exclude><exclude>META-INF/*.DSA</exclude><exclude>META-INF/*.RSA</exclude></excludes></filter></filters>
      </configuration></execution></executions></plugin>
  </plugins></build>"""
    return _pom(artifact, body=body)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True)
    return done.stdout


def commit_all(root: Path, message: str) -> str:
    if not (root / ".git").is_dir():
        git(root, "init", "-q")
        git(root, "config", "user.email", "tests@rigorbench.dev")
        git(root, "config", "user.name", "rigorbench tests")
        (root / ".gitignore").write_text("target/\nbuild/\n.gradle/\n.rigorbench/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


CORE_DEP = f"<dependency><groupId>{GROUP}</groupId><artifactId>core</artifactId><version>${{project.version}}</version></dependency>"


def multi_module(root: Path) -> Path:
    """Two commits of the core + bench reactor; returns the repository root."""
    _write(root, {
        "pom.xml": _aggregator(["core", "bench"]),
        "core/pom.xml": _pom("core"),
        "core/src/main/java/dev/rigorbench/fixture/core/Core.java": CORE_JAVA % {"rounds": 4},
        "bench/pom.xml": _jmh_module("bench", "microbenchmarks", CORE_DEP),
        "bench/src/main/java/dev/rigorbench/fixture/bench/CoreBenchmark.java": BENCH_JAVA,
    })
    commit_all(root, "core: slow work")
    _write(root, {
        "core/src/main/java/dev/rigorbench/fixture/core/Core.java": CORE_JAVA % {"rounds": 1},
        "bench/src/main/java/dev/rigorbench/fixture/bench/NewBenchmark.java": NEW_BENCH_JAVA,
    })
    commit_all(root, "core: 4x less work; a new benchmark")
    return root


def two_jmh_modules(root: Path) -> Path:
    files = {"pom.xml": _aggregator(["perf-a", "perf-b", "lib"]), "lib/pom.xml": _pom("lib")}
    for name, cls in (("perf-a", "ABenchmark"), ("perf-b", "BBenchmark")):
        pkg = name.replace("-", "")
        files[f"{name}/pom.xml"] = _jmh_module(name, "benchmarks")
        files[f"{name}/src/main/java/dev/rigorbench/fixture/{pkg}/{cls}.java"] = SIMPLE_BENCH_JAVA % {"pkg": pkg, "cls": cls}
    _write(root, files)
    commit_all(root, "two JMH modules")
    return root


GRADLE_BENCH = f"""apply plugin: 'java'
repositories {{ mavenCentral() }}
sourceCompatibility = 17
targetCompatibility = 17
dependencies {{
    compile 'org.openjdk.jmh:jmh-core:{JMH}'
    compileOnly 'org.openjdk.jmh:jmh-generator-annprocess:{JMH}'
}}
// What the me.champeau.jmh plugin's jmhJar task makes: one self-contained jar.
task jmhJar(type: Jar, dependsOn: classes) {{
    archiveName = 'bench-jmh.jar'
    manifest {{ attributes 'Main-Class': 'org.openjdk.jmh.Main' }}
    from sourceSets.main.output
    from {{ configurations.runtimeClasspath.collect {{ it.isDirectory() ? it : zipTree(it) }} }}
    exclude 'META-INF/*.SF', 'META-INF/*.DSA', 'META-INF/*.RSA', '**/*.java'
}}
"""


def gradle_multi(root: Path) -> Path:
    """Two commits of a Gradle build with a ``bench`` project (no wrapper: ``gradle``)."""
    _write(root, {
        "settings.gradle": "rootProject.name = 'fixture'\ninclude 'bench'\n",
        "build.gradle": "// the root project holds no code\n",
        "bench/build.gradle": GRADLE_BENCH,
        "bench/src/main/java/dev/rigorbench/fixture/bench/GBenchmark.java": SIMPLE_BENCH_JAVA % {"pkg": "bench", "cls": "GBenchmark"},
    })
    commit_all(root, "gradle bench")
    _write(root, {"bench/src/main/java/dev/rigorbench/fixture/bench/NewBenchmark.java": NEW_BENCH_JAVA})
    commit_all(root, "a new benchmark")
    return root


OFFLINE_WRAPPER = """#!/bin/sh
# Prints what the real Gradle wrapper prints when it cannot reach services.gradle.org.
echo "Downloading https://services.gradle.org/distributions/gradle-8.5-bin.zip"
echo 'Exception in thread "main" java.net.UnknownHostException: services.gradle.org'
echo "	at org.gradle.wrapper.Download.downloadInternal(Download.java:58)"
exit 1
"""


def with_offline_wrapper(root: Path) -> Path:
    """A Gradle project whose wrapper cannot download Gradle (as on a machine without network)."""
    _write(root, {
        "settings.gradle": "rootProject.name = 'offline'\n",
        "build.gradle": "plugins { id 'java'\n id 'me.champeau.jmh' version '0.7.2' }\n",
        "gradle/wrapper/gradle-wrapper.properties": "distributionUrl=https\\://services.gradle.org/distributions/gradle-8.5-bin.zip\n",
        "gradlew": OFFLINE_WRAPPER,
    })
    (root / "gradlew").chmod(0o755)
    return root
