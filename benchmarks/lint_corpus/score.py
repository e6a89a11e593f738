#!/usr/bin/env python3
"""Score `rigorbench lint` on the labelled corpus: per project and per rule, warning-or-error only.

usage: score.py TREES [--split SPLIT|all] [--rigorbench EXE] [--labels CSV ...]
  TREES   folder written by extract.py (one sub-folder per project)

Lints every project of projects.toml in the chosen split (`rigorbench lint P --format json`,
cwd = TREES) and matches each warning-or-error finding to a label row of the same project,
file and rule: first the same line, then the same method/fixture/field key. Labels come from
labels.csv here and, for the five lint-real-dev projects, ../shared/data/lint-real-dev/labels.csv.
Prints, per project and per rule: findings (warning or error), TP, FP, unlabelled, precision
TP/(TP+FP) (a finding matching a MISS row is a TP: a labelled positive, now reported), and recall: labelled positives (TP or MISS rows) reported at warning or error / all.
Unlabelled findings are listed: judge them by the rubric (lint-real-dev/README.md) and add rows.
"""
from __future__ import annotations

import argparse
import collections
import csv
import json
import os
import re
import subprocess
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEV_LABELS = Path("/work/shared/data/lint-real-dev/labels.csv")


def finding_keys(f: dict) -> set[str]:
    keys = set()
    bench = f.get("benchmark") or ""
    if bench:
        keys.add(bench.rpartition(".")[2])
    m = re.search(r" on [\w$]+\.(\w+) ", f["message"]) if f["rule"] == "INVO" else None
    if m:
        keys.add(m.group(1))
    m = re.search(r"field '(\w+)'", f["message"]) if f["rule"] == "FINAL" else None
    if m:
        keys.add("field:" + m.group(1))
    m = re.search(r"'(\w+)'", f["message"]) if f["rule"] in ("PARAMW", "PARAMU") else None
    if m:
        keys.add("field:" + m.group(1))
    if f["rule"] == "FORK":
        keys.add("*file*")
    return keys


def label_key(row: dict) -> set[str]:
    keys = {row["method"], row["method"].split("@")[0]}
    if row["rule"] == "FORK":
        keys.add("*file*")
    return keys


def lint(exe: str, trees: Path, project: str) -> list[dict] | None:
    """The warning-or-error findings, or None when the lint failed on the project (a crash
    is a result on unseen code: it is reported and scored as no finding, not a stop)."""
    out = subprocess.run([exe, "lint", project, "--format", "json", "--fail-on", "never"],
                         cwd=trees, capture_output=True, text=True, check=False)
    if out.returncode not in (0, 1):
        print(f"CRASH lint {project}: exit {out.returncode}: {out.stderr.strip()[:300]}")
        return None
    root = os.path.abspath(trees / project)
    found = []
    report = json.loads(out.stdout)
    failed = [w for w in report.get("warnings", []) if "failed" in str(w)]
    if failed:   # a rule that failed on a file lost its findings there: a result too
        print(f"RULE FAILED lint {project}: {len(failed)} file(s), first: {str(failed[0])[:200]}")
    for f in report["findings"]:
        if f["severity"] == "info":
            continue
        path = Path(f["path"]) if os.path.isabs(f["path"]) else trees / f["path"]
        f["file"] = os.path.relpath(os.path.abspath(path), root)
        found.append(f)
    return found


def match(findings: list[dict], labels: list[dict]) -> dict[int, int]:
    """finding index -> label index (a label may match several findings on one line)."""
    by_place = collections.defaultdict(list)
    for li, row in enumerate(labels):
        by_place[(row["file"], row["rule"])].append(li)
    picked: dict[int, int] = {}
    for fi, f in enumerate(findings):
        cands = by_place.get((f["file"], f["rule"]), [])
        same_line = [li for li in cands if labels[li]["line"] == str(f["line"])]
        same_key = [li for li in cands if label_key(labels[li]) & finding_keys(f)]
        free = [li for li in same_line + same_key if li not in picked.values()]
        pick = (free or same_line or same_key or [None])[0]
        if pick is not None:
            picked[fi] = pick
    return picked


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", type=Path)
    with (HERE / "projects.toml").open("rb") as fh:
        catalogue = tomllib.load(fh)["project"]
    splits = sorted({p["split"] for p in catalogue}, key=lambda s: (len(s), s))
    ap.add_argument("--split", default="all", choices=[*splits, "all"], metavar="SPLIT",
                    help="a split of projects.toml (tune, heldout, heldout2, ...) or all")
    ap.add_argument("--rigorbench", default=str(HERE.parent.parent / ".venv/bin/rigorbench"))
    ap.add_argument("--labels", nargs="*", default=[str(HERE / "labels.csv"), str(DEV_LABELS)])
    ap.add_argument("--missed", action="store_true", help="also list the labelled positives not reported")
    a = ap.parse_args(argv)
    projects = [p["name"] for p in catalogue if a.split in ("all", p["split"])]
    rows = [r for path in a.labels for r in csv.DictReader(open(path, newline=""))]
    table = collections.defaultdict(collections.Counter)   # (project|ALL, rule|ALL) -> counts
    unlabelled = []
    missed = []
    crashed = []
    for project in projects:
        labels = [r for r in rows if r["project"] == project]
        findings = lint(a.rigorbench, a.trees, project)
        if findings is None:
            crashed.append(project)
            findings = []
        picked = match(findings, labels)
        for fi, f in enumerate(findings):
            verdict = labels[picked[fi]]["verdict"] if fi in picked else "unlabelled"
            verdict = "TP" if verdict == "MISS" else verdict   # a labelled miss, now reported
            if verdict == "unlabelled":
                unlabelled.append(f"{f['rule']} {project}/{f['file']}:{f['line']} {f.get('benchmark')}")
            for key in [(project, f["rule"]), (project, "ALL"), ("ALL", f["rule"]), ("ALL", "ALL")]:
                table[key]["findings"] += 1
                table[key][verdict] += 1
        reported = set(picked.values())
        for li, row in enumerate(labels):
            if row["verdict"] in ("TP", "MISS"):
                for key in [(project, row["rule"]), (project, "ALL"), ("ALL", row["rule"]), ("ALL", "ALL")]:
                    table[key]["positives"] += 1
                    table[key]["recalled"] += li in reported
                if li not in reported:
                    missed.append(f"{row['rule']} {project}/{row['file']}:{row['line']} {row['class']}.{row['method']}")
    print(f"{'project':14} {'rule':6} {'findings':>8} {'TP':>4} {'FP':>4} {'unlab':>5} {'precision':>9} {'recall':>12}")
    order = sorted(table, key=lambda k: (k[0] == "ALL", k[0], k[1] == "ALL", k[1]))
    for key in order:
        c = table[key]
        judged = c["TP"] + c["FP"]
        prec = f"{c['TP'] / judged:.2f}" if judged else "-"
        rec = f"{c['recalled']}/{c['positives']}={c['recalled'] / c['positives']:.2f}" if c["positives"] else "-"
        print(f"{key[0]:14} {key[1]:6} {c['findings']:>8} {c['TP']:>4} {c['FP']:>4} {c['unlabelled']:>5} {prec:>9} {rec:>12}")
    for line in unlabelled:
        print("unlabelled:", line)
    for line in missed if a.missed else []:
        print("missed:", line)
    for project in crashed:
        print(f"crashed: {project} (scored as no finding)")
    return 3 if crashed else 0


if __name__ == "__main__":
    raise SystemExit(main())
