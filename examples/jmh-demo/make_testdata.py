#!/usr/bin/env python3
"""Regenerate the JMH golden inputs in tests/testdata/jmh/ from real runs of this demo.

Builds examples/jmh-demo/v1 and v2 with Maven, runs their JMH jars with short settings and
keeps what JMH wrote: the console output (stdout, as ``*.log``) and the JSON result file
(``-rf json``, as ``*.json``). Nothing is edited afterwards; the fixtures are real output.

    python examples/jmh-demo/make_testdata.py        # from the repository root (or anywhere)

Produces (about 2-3 minutes on a 2-core machine):

    v1-trial1.json v1-trial1.log v2-trial1.json v2-trial1.log    all benchmarks, -prof gc
    v1-trial2.json v2-trial2.json                                 (runs in order v1 v2 v1 v2)
    v1-trial1.json.gz                                             gzip of v1-trial1.json
    v1-sample.json v1-sample.log     SampleTime mode (-bm sample): rawDataHistogram, percentiles
    v1-fail.json   v1-fail.log       -p size=0 makes StatsBenchmark throw; the others still run

Only the standard library is used. Exit status: 0 on success, 1 if a build or run failed.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
OUT = REPO / "tests" / "testdata" / "jmh"
VERSIONS = ("v1", "v2")

# Short but real settings: 2 forks x (2 warmup + 4 measurement iterations of 200 ms).
TRIAL = ["-f", "2", "-wi", "2", "-i", "4", "-w", "200ms", "-r", "200ms", "-prof", "gc"]
# SampleTime mode for a single benchmark (JMH include regex), one fork.
SAMPLE = ["-bm", "sample", "-f", "1", "-wi", "1", "-i", "3", "-w", "200ms", "-r", "200ms", "CsvParseBenchmark"]
# size=0 makes Numbers.mean throw IllegalArgumentException inside StatsBenchmark; PrimeCount runs fine.
FAIL = ["-f", "1", "-wi", "1", "-i", "2", "-w", "100ms", "-r", "100ms", "-p", "size=0", "StatsBenchmark|PrimeCountBenchmark"]

# (output name, version, JMH arguments, whether the console log is kept, may the run fail)
RUNS = [
    ("v1-trial1", "v1", TRIAL, True, False),
    ("v2-trial1", "v2", TRIAL, True, False),
    ("v1-trial2", "v1", TRIAL, False, False),
    ("v2-trial2", "v2", TRIAL, False, False),
    ("v1-sample", "v1", SAMPLE, True, False),
    ("v1-fail", "v1", FAIL, True, True),
]
SIZE_BUDGET = 1_000_000  # bytes, for all of tests/testdata/jmh


class Failed(Exception):
    """A build or JMH run failed; the message says which and where the output is."""


def java_command() -> str:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return str(Path(home) / "bin" / "java")
    found = shutil.which("java")
    if not found:
        raise Failed("java not found on PATH (JDK 17 or later is needed)")
    return found


def build(version: str, dest: Path) -> Path:
    """``mvn package`` one version; copy its benchmarks.jar to dest; remove target/ if we made it."""
    project = HERE / version
    target = project / "target"
    had_target = target.exists()
    mvn = shutil.which("mvn")
    if not mvn:
        raise Failed("mvn not found on PATH (Maven 3 is needed)")
    proc = subprocess.run(
        [mvn, "-B", "-q", "-Dstyle.color=never", "-DskipTests", "package"],
        cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    jar = target / "benchmarks.jar"
    if proc.returncode != 0 or not jar.exists():
        raise Failed(f"maven build of {version} failed (exit {proc.returncode}):\n{proc.stdout[-4000:]}")
    copy = dest / f"{version}-benchmarks.jar"
    shutil.copyfile(jar, copy)
    if not had_target:
        shutil.rmtree(target, ignore_errors=True)
    return copy


def run_jmh(java: str, jar: Path, args: list[str], name: str, workdir: Path, may_fail: bool) -> float:
    """Run one JMH invocation in workdir, writing NAME.json (-rff) and NAME.log (stdout)."""
    command = [java, "-jar", str(jar), *args, "-rf", "json", "-rff", f"{name}.json"]
    started = time.monotonic()
    with open(workdir / f"{name}.log", "w", encoding="utf-8") as log:
        proc = subprocess.run(command, cwd=workdir, stdout=log, stderr=subprocess.PIPE, text=True)
    elapsed = time.monotonic() - started
    if proc.stderr.strip():
        print(f"    (stderr of {name}: {proc.stderr.strip()[:2000]})")
    if not (workdir / f"{name}.json").exists():
        raise Failed(f"JMH run {name} wrote no JSON (exit {proc.returncode}); see {workdir / (name + '.log')}")
    if proc.returncode != 0 and not may_fail:
        raise Failed(f"JMH run {name} exited with {proc.returncode}; see {workdir / (name + '.log')}")
    return elapsed


def gzip_copy(src: Path, dst: Path) -> None:
    # mtime=0 and a fixed name in the header: the same JSON always gives the same bytes.
    with open(src, "rb") as raw, open(dst, "wb") as out:
        with gzip.GzipFile(filename=src.name, mode="wb", fileobj=out, mtime=0) as gz:
            shutil.copyfileobj(raw, gz)


def main() -> int:
    started = time.monotonic()
    java = java_command()
    with tempfile.TemporaryDirectory(prefix="rigorbench-testdata-") as tmp:
        work = Path(tmp)
        try:
            jars = {}
            for version in VERSIONS:
                t0 = time.monotonic()
                print(f"building {version} ...", end=" ", flush=True)
                jars[version] = build(version, work)
                print(f"done ({time.monotonic() - t0:.0f}s)", flush=True)
            for name, version, args, _, may_fail in RUNS:
                print(f"running {name}: java -jar {version}/target/benchmarks.jar {' '.join(args)} ...", end=" ", flush=True)
                elapsed = run_jmh(java, jars[version], args, name, work, may_fail)
                print(f"done ({elapsed:.0f}s)", flush=True)
        except Failed as exc:
            print(f"\nerror: {exc}", file=sys.stderr)
            return 1

        # Everything ran: only now replace the fixtures (other files in OUT are left alone).
        OUT.mkdir(parents=True, exist_ok=True)
        produced = []
        for name, _, _, keep_log, _ in RUNS:
            produced.append(f"{name}.json")
            if keep_log:
                produced.append(f"{name}.log")
        for file_name in produced:
            shutil.copyfile(work / file_name, OUT / file_name)
        gzip_copy(OUT / "v1-trial1.json", OUT / "v1-trial1.json.gz")
        produced.append("v1-trial1.json.gz")

    print(f"\nwrote to {OUT.relative_to(REPO) if OUT.is_relative_to(REPO) else OUT}:")
    for file_name in produced:
        print(f"  {file_name:<22} {(OUT / file_name).stat().st_size:>9,} bytes")
    total = sum(p.stat().st_size for p in OUT.iterdir() if p.is_file())
    print(f"  {'(whole directory)':<22} {total:>9,} bytes")
    if total > SIZE_BUDGET:
        print(f"warning: {OUT} holds more than {SIZE_BUDGET:,} bytes; shorten the runs", file=sys.stderr)
    print(f"total time {time.monotonic() - started:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
