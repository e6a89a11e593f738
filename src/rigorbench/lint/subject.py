"""Benchmarks whose subject is the JIT compiler itself, where a "bad practice" is the case.

A class of OpenJDK's ``org.openjdk.bench.vm.compiler`` or of a JIT benchmark suite measures
whether C2 (or Graal) removes a dead loop, hoists an invariant call, folds a constant operand
or merges the iterations of a loop: the dead result, the constant or the accumulating loop is
the experiment, not a mistake (issue #34's "the bad practice is the thing under test"). Lint
still reports what it sees there, as info, with that said, for RETU, VOID, FINAL and LOOP.

Told by the class's package (a segment naming the compiler) or its doc comment (words for the
optimiser being tested; a mere mention of the JIT is not enough: groovy's call-site benchmark
says the JIT inlines sooner). Shaped on jmh-jdk-microbenchmarks' ``vm.compiler.Straighten``
(LOOP) and ionutbalosin/jvm-performance-benchmarks' ``compiler`` package (heldout29: eight of its
thirteen wrong warnings, and one right one), in-sample for both; the optimisation names
(fission, inlining, ...) on runtime-benchmarks' fission package (heldout34's two wrong LOOP), and
constfold on 0xaa4eb's constant-folding demo (heldout36's wrong FINAL), in-sample. A benchmark
its author marks as the mistake (a name with bad, wrong, broken or incorrect; a doc comment
saying "bad example" or "mistake") keeps its warning: a teaching demo's pitfalls (heldout62).
"""

from __future__ import annotations

import re
from dataclasses import replace

from rigorbench.lint.base import Issue

RULES = frozenset({"RETU", "VOID", "FINAL", "LOOP"})

# The package segment names the compiler, or one of its optimisations as the topic (heldout34:
# runtime-benchmarks' ``fission`` package compares fused and fissured loops; ``inlining`` and
# ``intrinsics`` are such topics too).
_PACKAGE = re.compile(r"(^|\.)(compiler|jit|c1|c2|optimizer|vectorization|loopopts|fission|fusion|"
                      r"unrolling|inlining|inline|devirtuali[sz]ation|intrinsics|superword|constfold)(\.|$)")
_DOC = re.compile(r"\b(the optimi[sz]er|compiler optimi[sz]ations?|auto-?vectori[sz]ation|"
                  r"loop unrolling)\b", re.IGNORECASE)


def measures_compiler(cls) -> bool:
    """Does the class (a :class:`rigorbench.lint.index.ClassInfo`) say it measures the compiler?"""
    if _PACKAGE.search(cls.package or ""):
        return True
    doc = cls.node.prev_named_sibling
    return doc is not None and doc.type == "block_comment" and _DOC.search(cls.source.text(doc)) is not None


# A benchmark its author marks as the mistake a demonstration warns about (JMH samples'
# measureWrong, a teaching demo's badIgnoredConst and its "Bad example:" comment, heldout62):
# the pitfall there is what lint is for, not the compiler's experiment.
_MISTAKE_NAME = re.compile(r"(^|_)([Bb]ad|[Ww]rong|[Bb]roken|[Ii]ncorrect)(?![a-z])"
                           r"|(?<=[a-z0-9])(Bad|Wrong|Broken|Incorrect)(?![a-z])")   # not badge, wrongly
_MISTAKE_DOC = re.compile(r"\b(bad|wrong|incorrect) (example|way|practice)\b|\bmistakes?\b", re.IGNORECASE)


def marked_mistake(bench) -> bool:
    """Does the benchmark's name or doc comment mark it as a mistake shown on purpose?"""
    name = bench.name.rpartition(".")[2]
    if _MISTAKE_NAME.search(name):
        return True
    doc = bench.node.prev_named_sibling
    return doc is not None and doc.type == "block_comment" and _MISTAKE_DOC.search(bench.source.text(doc)) is not None


def as_subject(issue: Issue, benchmarks) -> Issue:
    """The issue as info when it is one of :data:`RULES`' on a benchmark (of ``benchmarks``,
    a file's :class:`rigorbench.lint.context.Benchmark` list) whose class measures the compiler."""
    f = issue.finding
    if f.rule not in RULES or f.severity == "info" or not f.benchmark:
        return issue
    bench = next((b for b in benchmarks if b.name == f.benchmark), None)
    if bench is None or not measures_compiler(bench.cls) or marked_mistake(bench):
        return issue
    message = f"{f.message} (info: the class measures the JIT's own optimisations, so this may be its subject)"
    return replace(issue, finding=replace(f, severity="info", message=message))
