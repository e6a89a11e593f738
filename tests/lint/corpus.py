"""Helpers for the labelled Java and Go corpora: read ``// expect: RULE`` labels, score findings."""

from __future__ import annotations

import importlib.util
import re
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
JAVA = HERE / "java"
CORPUS = JAVA / "corpus"
GAPS = JAVA / "gaps"
GO = HERE / "go"
EXPECT = re.compile(r"//\s*expect:\s*([A-Z][A-Z, -]*)")
SCRIPTS = HERE.parents[1] / "benchmarks" / "lint_corpus"


def corpus_script(name: str):
    """A script of benchmarks/lint_corpus (``sample``, ``extract``) loaded as a module."""
    spec = importlib.util.spec_from_file_location(f"corpus_{name}", SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def expected_labels(root: Path = CORPUS, pattern: str = "*.java") -> Counter:
    """Counter of (file name, line, rule) from trailing ``// expect:`` comments."""
    labels: Counter = Counter()
    for path in sorted(root.rglob(pattern)):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = EXPECT.search(line)
            if match:
                for rule in filter(None, (r.strip() for r in match.group(1).split(","))):
                    labels[(path.name, number, rule)] += 1
    return labels


def found_labels(findings) -> Counter:
    return Counter((Path(f.path).name, f.line, f.rule) for f in findings)


def score(expected: Counter, found: Counter, rules) -> dict[str, tuple[int, int, int]]:
    """Per rule and overall ("ALL"): (true positives, false positives, false negatives)."""
    table = {}
    for rule in [*rules, "ALL"]:
        exp = Counter({k: v for k, v in expected.items() if rule in ("ALL", k[2])})
        got = Counter({k: v for k, v in found.items() if rule in ("ALL", k[2])})
        tp = sum((exp & got).values())
        table[rule] = (tp, sum(got.values()) - tp, sum(exp.values()) - tp)
    return table


def format_table(table: dict[str, tuple[int, int, int]]) -> str:
    width = max(7, *(len(rule) for rule in table))
    lines = [f"{'rule':<{width}} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>9} {'recall':>7}"]
    for rule, (tp, fp, fn) in table.items():
        precision = tp / (tp + fp) if tp + fp else float("nan")
        recall = tp / (tp + fn) if tp + fn else float("nan")
        lines.append(f"{rule:<{width}} {tp:>4} {fp:>4} {fn:>4} {precision:>9.2f} {recall:>7.2f}")
    return "\n".join(lines)
