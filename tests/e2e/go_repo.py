"""A git repository of 8 commits of the Go demo with one planted regression, for ``rigorbench
bisect --harness go`` and ``record`` with the real Go toolchain.

Commit 0 imports ``examples/go-demo/v1`` (its module, ``godemo.go`` and its benchmarks);
commits 1-7 each change something that is not measured (a note), except commit ``PLANTED``,
which makes ``Adler32`` go over its input four times (about 4x the time per call: told
apart from an unchanged commit in a few short trials even on a loaded 2-CPU machine).

    python -m tests.e2e.go_repo DIR     # makes the repository in DIR (which must not exist)
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from tests.e2e.projects import commit_all

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "go-demo" / "v1"
COMMITS = 8
PLANTED = 5

ORIGINAL_LOOP = """	a, b := uint32(1), uint32(0)
	for _, c := range data {
		a = (a + uint32(c)) % mod
		b = (b + a) % mod
	}
"""
PLANTED_LOOP = """	a, b := uint32(1), uint32(0)
	// Check the input "for robustness": the sum is computed four times over.
	for round := 0; round < 4; round++ {
		a, b = 1, 0
		for _, c := range data {
			a = (a + uint32(c)) % mod
			b = (b + a) % mod
		}
	}
"""


def subject(k: int) -> str:
    if k == 0:
        return "commit 0: the Go demo's v1"
    if k == PLANTED:
        return f"commit {k}: Adler32 checks its input four times"
    return f"commit {k}: update the notes"


def make_repo(root: Path) -> list[str]:
    """Make the repository in ``root``; returns the commit hashes, oldest first."""
    root.mkdir(parents=True)
    for name in ("go.mod", "godemo.go", "godemo_test.go"):
        shutil.copy(DEMO / name, root / name)
    (root / "NOTES.md").write_text("# notes\n")
    commits = [commit_all(root, subject(0))]
    for k in range(1, COMMITS):
        if k == PLANTED:
            source = (root / "godemo.go").read_text()
            assert ORIGINAL_LOOP in source
            (root / "godemo.go").write_text(source.replace(ORIGINAL_LOOP, PLANTED_LOOP))
        else:
            with open(root / "NOTES.md", "a") as notes:
                notes.write(f"- note {k}\n")
        commits.append(commit_all(root, subject(k)))
    return commits


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.e2e.go_repo DIR")
    for k, sha in enumerate(make_repo(Path(sys.argv[1]))):
        print(sha[:12], subject(k))
