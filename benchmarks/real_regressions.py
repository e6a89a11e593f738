"""Reproduce the documented performance changes of ``real_regressions.toml`` with rigorbench.

For every ``[[case]]`` (or those named with ``--case``): make a working clone of the project
from a fetched mirror (a bare git directory ``MIRRORS/owner+name*``) or, without one, from
GitHub; run ``rigorbench ab`` between ``base`` and ``contender`` with the case's settings; and
check that the verdicts give the documented direction (``expect``). With ``--bisect``, cases
that name a ``bisect_good``/``bisect_bad`` range are bisected too (``--find`` the documented
direction) and the culprit is checked against ``contender``; with ``--record``, every commit
of that range is recorded and ``history changes`` must find a change point of the expected
direction at ``contender``. Prints one line per case and a
markdown table (verdicts, change [CI], detectable change, wall time); exit 1 when a case
does not reproduce.

Mirrors may lack large blobs (fuzz corpora, generated tables): each missing blob is pointed at
the empty blob with ``git replace`` in the working clone, which keeps every commit hash.

Run: ``python benchmarks/real_regressions.py [--mirrors DIR] [--case NAME] [--bisect] [--record] [--out DIR]``.
Not a test: each case builds two revisions and runs minutes of trials.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = HERE / "real_regressions.toml"
DEFAULT_MIRRORS = Path("/work/.mirror")


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def clone(repository: str, mirrors: Path, into: Path) -> Path:
    """A working clone of ``repository`` with every blob the mirror lacks replaced by the empty one."""
    found = sorted(mirrors.glob(repository.replace("/", "+") + "*")) if mirrors.is_dir() else []
    bare = next((p for p in found if (p / "HEAD").is_file()), None)
    if bare is None:   # a mirror folder holding the bare repository one level down
        bare = next((q for p in found for q in p.glob("*") if (q / "HEAD").is_file()), None)
    source = str(bare) if bare is not None else f"https://github.com/{repository}.git"
    target = into / repository.replace("/", "-")
    if target.is_dir():   # another case of the same repository
        return target
    git("clone", "-q", "--no-checkout", source, str(target))
    missing = [line[1:] for line in git("rev-list", "--objects", "--all", "--missing=print", cwd=target).splitlines()
               if line.startswith("?")]
    if missing:
        empty = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=target, input="", check=True,
                               capture_output=True, text=True).stdout.strip()
        for blob in missing:
            git("update-ref", f"refs/replace/{blob}", empty, cwd=target)
    return target


OUT: Path | None = None   # --out: where each command's JSON document is kept


def rigorbench(*args: str) -> tuple[int, str, float]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "rigorbench", *args], capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1, 3, 4):
        print(done.stderr[-3000:], file=sys.stderr)
    if OUT is not None:
        OUT.mkdir(parents=True, exist_ok=True)
        stem = f"{args[0]}-{len(list(OUT.glob(args[0] + '-*.json')))}"
        (OUT / f"{stem}.json").write_text(done.stdout, encoding="utf-8")
        (OUT / f"{stem}.log").write_text(done.stderr, encoding="utf-8")
    return done.returncode, done.stdout, time.perf_counter() - start


def checkout(target: Path, case: dict) -> Path:
    git("checkout", "-q", "--detach", case["base"], cwd=target)
    return target / case.get("module", ".")


def run_ab(case: dict, target: Path, store: Path) -> dict:
    path = checkout(target, case)
    code, out, seconds = rigorbench(
        "ab", str(path), "--base", case["base"], "--contender", case["contender"], "--harness", case["harness"],
        "--bench", case["bench"], "--store", str(store), "--format", "json", *case.get("args", []))
    comparisons = json.loads(out)["comparisons"] if out.strip().startswith("{") else []
    verdicts = [c["verdict"] for c in comparisons]
    reproduced = case["expect"] in verdicts and not ({"slower", "faster"} - {case["expect"]}) & set(verdicts)
    return {"code": code, "seconds": seconds, "comparisons": comparisons, "reproduced": reproduced}


def run_bisect(case: dict, target: Path, store: Path) -> dict:
    path = checkout(target, case)
    code, out, seconds = rigorbench(
        "bisect", str(path), "--good", case["bisect_good"], "--bad", case["bisect_bad"], "--harness", case["harness"],
        "--bench", case["bench"], "--find", case["expect"], "--store", str(store), "--format", "json",
        *case.get("bisect_args", []))
    document = json.loads(out) if out.strip().startswith("{") else {}
    culprit = (document.get("culprit") or {}).get("commit", "")
    return {"code": code, "seconds": seconds, "culprit": culprit,
            "reproduced": bool(culprit) and culprit[:12] == case["contender"][:12]}


def run_record(case: dict, target: Path, store: Path) -> dict:
    """``record`` every first-parent commit of the bisect range (good included), then
    ``history changes``: the documented commit should open a change of the expected direction."""
    path = checkout(target, case)
    commits = git("rev-list", "--first-parent", "--reverse", f"{case['bisect_good']}^..{case['bisect_bad']}",
                  cwd=target).split()
    start = time.perf_counter()
    for commit in commits:
        rigorbench("record", str(path), "--rev", commit, "--harness", case["harness"], "--bench", case["bench"],
                   "--store", str(store), *case.get("record_args", case.get("args", [])))
    code, out, _ = rigorbench("history", "changes", "--store", str(store), "--format", "json")
    series = json.loads(out).get("series", []) if out.strip().startswith("{") else []
    changes = [(s["benchmark"], c) for s in series for c in s.get("changes", [])]
    wanted = {"slower": "slower", "faster": "faster"}[case["expect"]]
    hits = [(name, c) for name, c in changes if c["commit"][:12] == case["contender"][:12] and c["direction"] == wanted]
    return {"code": code, "seconds": time.perf_counter() - start, "commits": len(commits), "changes": changes,
            "reproduced": bool(hits)}


def name_of(case: dict) -> str:
    return f"{case['repository']}@{case['contender'][:8]}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS, help="folder of fetched bare mirrors")
    parser.add_argument("--case", action="append", default=[], help="only cases whose repository@commit contains this")
    parser.add_argument("--bisect", action="store_true", help="also bisect the cases that name a range")
    parser.add_argument("--record", action="store_true", help="also record every commit of the bisect range and "
                        "look for the change point in the history")
    parser.add_argument("--out", type=Path, help="keep each command's JSON document in this folder")
    args = parser.parse_args(argv)
    global OUT
    OUT = args.out
    cases = tomllib.loads(CASES.read_text(encoding="utf-8"))["case"]
    cases = [c for c in cases if not args.case or any(word in name_of(c) for word in args.case)]
    rows, failed = [], []
    with tempfile.TemporaryDirectory(prefix="rigorbench-real-") as tmp:
        for number, case in enumerate(cases):
            target = clone(case["repository"], args.mirrors, Path(tmp))
            result = run_ab(case, target, Path(tmp) / f"ab-{number}.db")
            changes = "; ".join(
                f"{c['benchmark'].split('.')[-1]}{''.join(f'/{v}' for v in c['params'].values())} {c['verdict']} "
                f"{c['change_pct']:+.1f}% [{(c['ratio']['ci_low'] - 1) * 100:+.1f}, {(c['ratio']['ci_high'] - 1) * 100:+.1f}]"
                f" detects {c['mds_pct']:.0f}%" for c in result["comparisons"] if c["mds_pct"] is not None)
            rows.append((name_of(case), "ab", case["expect"], result["reproduced"], changes, result["seconds"]))
            if args.bisect and "bisect_good" in case:
                found = run_bisect(case, target, Path(tmp) / f"bisect-{number}.db")
                rows.append((name_of(case), "bisect", case["expect"], found["reproduced"],
                             f"culprit {found['culprit'] or 'none'} (exit {found['code']})", found["seconds"]))
            if args.record and "bisect_good" in case:
                history = run_record(case, target, Path(tmp) / f"history-{number}.db")
                listed = "; ".join(f"{name.split('.')[-1]} {c['direction']} {c['change_pct']:+.1f}% at {c['commit'][:8]}"
                                   for name, c in history["changes"]) or "no change point"
                rows.append((name_of(case), f"record x{history['commits']} + history changes", case["expect"],
                             history["reproduced"], listed, history["seconds"]))
            print(f"{rows[-1][0]}: {'reproduced' if rows[-1][3] else 'NOT reproduced'}", flush=True)
    print("\n| case | command | expected | reproduced | result | wall time |\n|---|---|---|---|---|---|")
    for name, command, expect, ok, result, seconds in rows:
        print(f"| {name} | {command} | {expect} | {'yes' if ok else 'no'} | {result} | {seconds / 60:.1f} min |")
        if not ok:
            failed.append(name)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
