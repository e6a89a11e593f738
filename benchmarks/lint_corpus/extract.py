#!/usr/bin/env python3
"""Extract the JMH sources of the corpus projects from fetched git mirrors.

usage: extract.py MIRRORS OUT [--project NAME ...]
  MIRRORS  folder with one git directory per repository, named owner+name/repo, bare or
           with its .git inside (what the fetch tool writes, e.g. /work/.mirror/apache+kafka/repo)
  OUT      scratch folder OUTSIDE this repository; each project goes to OUT/<name>/<path>

For every project of projects.toml that has a repository, copies the files at the pinned
commit under its folders whose name ends in .java and whose text mentions org.openjdk.jmh
(code JMH generated is not in the repositories). A project with `superclasses = true` (heldout5
on; earlier projects keep their trees as labelled) also gets the files under its folders that
declare a superclass of a copied class, though they lack the JMH import (a state's base class
with its setup or sizes), followed up the hierarchy. Projects read from lint-real-dev are linked:
OUT/<name> -> ../shared/data/lint-real-dev/trees/<name>. Writes OUT/COMMITS.txt.
The fetched code never enters this repository: OUT inside the repository is refused.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
DEV_TREES = Path("/work/shared/data/lint-real-dev/trees")


def load_projects(path: Path = HERE / "projects.toml") -> list[dict]:
    with path.open("rb") as f:
        return tomllib.load(f)["project"]


def git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args],
                          check=True, capture_output=True).stdout


# `class C extends Name` or `class C<T extends X> extends pkg.Name`: the superclass of a class
# declaration, not a bound such as `Class<? extends Name>`.
_EXTENDS = re.compile(rb"\bclass\s+\w+\s*(?:<[^{]*?>)?\s+extends\s+(?:[\w.]+\.)?([A-Z]\w*)")


def _superclass_files(paths: list[str], texts: dict[str, bytes], show) -> dict[str, bytes]:
    """The files among `paths` that declare a class some text of `texts` extends, transitively.

    Matched by file name (`Name.java`), preferring the extending file's own folder, so a
    name that several folders declare is taken from the nearest only: enough for the base
    states and suites of one benchmark module, which is what the lint is run on. `show`
    reads a path's text at the pinned commit."""
    by_name: dict[str, list[str]] = {}
    for path in paths:
        if path.endswith(".java"):
            by_name.setdefault(path.rsplit("/", 1)[-1][:-5], []).append(path)
    found: dict[str, bytes] = {}
    todo = list(texts.items())
    while todo:
        path, text = todo.pop()
        folder = path.rsplit("/", 1)[0]
        for name in sorted({m.decode() for m in _EXTENDS.findall(text)}):
            cands = by_name.get(name, [])
            near = [c for c in cands if c.rsplit("/", 1)[0] == folder] or cands[:1]
            for cand in near:
                if cand not in texts and cand not in found:
                    found[cand] = show(cand)
                    todo.append((cand, found[cand]))
    return found


def extract(project: dict, mirrors: Path, out: Path) -> int:
    owner, name = project["repository"].split("/")
    git_dir = mirrors / f"{owner}+{name}" / "repo"
    if (git_dir / ".git").is_dir():   # the fetch tool writes some mirrors as a checkout's .git
        git_dir = git_dir / ".git"
    if not git_dir.is_dir():
        sys.exit(f"{git_dir}: no mirror of {project['repository']} (fetch it first)")
    commit = project["commit"]
    listing = git(git_dir, "ls-tree", "-r", "--name-only", commit, "--", *project["folders"])
    paths = listing.decode().splitlines()
    texts = {}
    for path in paths:
        if not path.endswith(".java"):
            continue
        text = git(git_dir, "show", f"{commit}:{path}")
        if b"org.openjdk.jmh" in text:
            texts[path] = text
    if project.get("superclasses"):
        texts.update(_superclass_files(paths, texts,
                                       lambda path: git(git_dir, "show", f"{commit}:{path}")))
    root = out / project["name"]
    if root.is_symlink():   # a lint-real-dev link: writing through it would change the shared data
        sys.exit(f"{root}: a link to {root.resolve()}; refusing to write through it")
    for path, text in texts.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text)
    return len(texts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mirrors", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--project", action="append", help="only these projects")
    a = ap.parse_args(argv)
    out = a.out.resolve()
    if out == REPO_ROOT or REPO_ROOT in out.parents:
        sys.exit(f"{out}: inside the repository; extract to a scratch folder such as /tmp/lint-corpus")
    out.mkdir(parents=True, exist_ok=True)
    commits = []
    projects = load_projects()
    names = [project["name"] for project in projects]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:   # two projects of one name would share OUT/<name> (and the labels' project column)
        sys.exit(f"projects.toml: project name(s) used twice: {', '.join(twice)}")
    for project in projects:
        if a.project and project["name"] not in a.project:
            continue
        if project.get("source") == "lint-real-dev":
            link = out / project["name"]
            if not link.exists():
                link.symlink_to(DEV_TREES / project["name"])
            continue
        n = extract(project, a.mirrors, out)
        commits.append(f"{project['name']} {project['commit']}")
        print(f"{project['name']}: {n} files")
    (out / "COMMITS.txt").write_text("\n".join(commits) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
