#!/usr/bin/env python3
"""Draw the seeded random sample of benchmarks that are read by hand for misses (issue #34 item 6).

usage: sample.py TREES --project NAME [--n 25] [--seed 34] [--same-line] [--spanning] [--stacked]
  TREES  folder written by extract.py
  --same-line  also list `@Benchmark public T name(` written on one line (heldout6 on); off by
               default so the samples recorded for earlier sets (okio, zipkin have such lines)
               draw again as recorded
  --spanning   also list `@Benchmark()`, and benchmarks whose annotations span lines
               (`@Warmup(\n iterations = 10\n)`) or are interrupted by `//` comments; the
               default listing missed those (cyclops listed none), and is kept for the samples
               recorded before (session 45 on)
  --stacked    also list `@Benchmark @Threads(4)` and other annotations written on the
               `@Benchmark` line, the declaration on that line or below (midplane's 92 such
               benchmarks were unlisted in session 48); off by default for the same reason
  --all-forms  also list `@org.openjdk.jmh.annotations.Benchmark` and `@GenerateMicroBenchmark`
               (JMH before 1.0), and skip `//` lines between annotation and declaration (a
               commented-out annotation was taken for the method's name); session 51 on

Lists every `@Benchmark` method of the project (file, line of the annotation, method name),
sorted by file and line, and prints `n` of them drawn with random.Random(seed).sample. The
listing is textual on purpose: the sample must not depend on the lint whose misses it looks for.
A fixed seed makes the sample one anyone can draw again; the README records seed and list.
"""
from __future__ import annotations

import argparse
import random
import re
from pathlib import Path

# An annotation line, then (after other annotations or blank lines) a method declaration.
_DECL = re.compile(r"\b(\w+)\s*\(")


# `@Benchmark public void name(` on one line: the annotation and the declaration together.
_INLINE = re.compile(r"^@Benchmark\s+[^(@]*?\b(\w+)\s*\(")


def _after_annotations(lines: list[str]) -> str | None:
    """The method name declared after a run of annotations that may span lines and hold
    ``//`` comments (the ``--spanning`` listing)."""
    depth = 0
    for nxt in lines:
        s = nxt.strip()
        if depth == 0 and (not s or s.startswith("//")):
            continue
        if depth == 0 and not s.startswith("@"):
            m = _DECL.search(s)
            return m.group(1) if m else None
        depth = max(0, depth + s.count("(") - s.count(")"))
    return None


# `@Benchmark @Threads(4) @Fork(1)`: the annotation followed by others on its line.
_STACKED = re.compile(r"^@Benchmark(?:\(\))?((?:\s+@\w+(?:\([^()]*\))?)+)\s*(.*)$")


# The other spellings of the annotation: fully qualified, and JMH's name for it before 1.0.
_OTHER_FORMS = re.compile(r"^(\s*)@(?:org\.openjdk\.jmh\.annotations\.)?(?:Benchmark|GenerateMicroBenchmark)\b")


def benchmarks(root: Path, same_line: bool = False, spanning: bool = False,
               stacked: bool = False, all_forms: bool = False) -> list[tuple[str, int, str]]:
    found = []
    for path in sorted(root.rglob("*.java")):
        lines = path.read_text(errors="replace").splitlines()
        if all_forms:
            lines = [_OTHER_FORMS.sub(r"\1@Benchmark", line) for line in lines]
        for i, line in enumerate(lines):
            m = _INLINE.match(line.strip()) if same_line else None
            if m:
                found.append((str(path.relative_to(root)), i + 1, m.group(1)))
                continue
            m = _STACKED.match(line.strip()) if stacked else None
            if m:
                rest = _DECL.search(m.group(2)) if m.group(2) else None
                name = rest.group(1) if rest else _after_annotations(lines[i + 1:i + 30])
                if name:
                    found.append((str(path.relative_to(root)), i + 1, name))
                continue
            if spanning and line.strip() in ("@Benchmark", "@Benchmark()"):
                name = _after_annotations(lines[i + 1:i + 30])
                if name:
                    found.append((str(path.relative_to(root)), i + 1, name))
                continue
            if line.strip() != "@Benchmark":
                continue
            for nxt in lines[i + 1:i + (30 if all_forms else 8)]:
                s = nxt.strip()
                if not s or s.startswith("@") or all_forms and s.startswith("//"):
                    continue
                m = _DECL.search(s)
                if m:
                    found.append((str(path.relative_to(root)), i + 1, m.group(1)))
                break
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", type=Path)
    ap.add_argument("--project", required=True)
    ap.add_argument("--n", type=int, default=25)
    ap.add_argument("--seed", type=int, default=34)
    ap.add_argument("--same-line", action="store_true",
                    help="also list @Benchmark written on the declaration's line")
    ap.add_argument("--spanning", action="store_true",
                    help="also list @Benchmark() and annotations spanning lines or holding comments")
    ap.add_argument("--stacked", action="store_true",
                    help="also list @Benchmark followed by other annotations on its line")
    ap.add_argument("--all-forms", action="store_true",
                    help="also list qualified and pre-1.0 (@GenerateMicroBenchmark) annotations")
    a = ap.parse_args(argv)
    every = benchmarks(a.trees / a.project, a.same_line, a.spanning, a.stacked, a.all_forms)
    chosen = sorted(random.Random(a.seed).sample(every, min(a.n, len(every))))
    print(f"# {a.project}: {len(chosen)} of {len(every)} benchmarks, seed {a.seed}")
    for file, line, method in chosen:
        print(f"{file}:{line} {method}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
