"""A git repository of small JMH project's commits (16 unless told otherwise) with one planted
regression, for ``rigorbench bisect`` (the end-to-end test and docs/bisect.md's example).

Derived from ``examples/jmh-demo/v1``: its POM, ``Numbers`` and ``CsvParseBenchmark``.
Commit 0 imports them; every later commit changes something that is not measured (a note, a
comment), except the planted commit (``PLANTED`` unless ``make_repo`` is told another), which
makes ``Numbers.sumCsv`` hash the whole line twice as well as parsing it (several times the time per call: large enough to be told apart
from an unchanged commit in a few short trials on a loaded 2-CPU machine, where a fork that
shares its CPU with other work runs 2-3x slower).

    python -m tests.e2e.bisect_repo DIR [K [N]]  # makes the repository in DIR (which must not
                                                 # exist), the regression in commit K (default
                                                 # PLANTED), N commits (default COMMITS)
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

from tests.e2e.projects import commit_all

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "jmh-demo" / "v1"
PACKAGE = Path("src/main/java/dev/rigorbench/demo")
NUMBERS = PACKAGE / "lib" / "Numbers.java"
COMMITS = 16
PLANTED = 11

ORIGINAL_RETURN = "        return total + (negative ? -current : current);\n    }\n"
PLANTED_RETURN = """        // Hash the whole line too, "to catch corrupted input": two more passes over it.
        return total + (negative ? -current : current) + (checksum(line) >>> 63);
    }

    static long checksum(String line) {
        long h = 0;
        for (int round = 0; round < 2; round++) {
            for (int i = 0, n = line.length(); i < n; i++) {
                h = (h ^ line.charAt(i)) * 0x9E3779B97F4A7C15L;
                h ^= h >>> 29;
            }
        }
        return h;
    }
"""


def subject(k: int, planted: int = PLANTED) -> str:
    if k == planted:
        return f"commit {k}: sumCsv checks its input with a checksum"
    return f"commit {k}: " + ("update the notes" if k % 2 else "reword a comment in Numbers")


def make_repo(root: Path, planted: int = PLANTED, commits: int = COMMITS) -> list[str]:
    """Make the repository of ``commits`` commits in ``root`` with the regression planted in
    commit ``planted``; returns the commit hashes, oldest first."""
    assert 1 <= planted < commits
    root.mkdir(parents=True)
    shutil.copy(DEMO / "pom.xml", root / "pom.xml")
    for name in (NUMBERS, PACKAGE / "CsvParseBenchmark.java"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DEMO / name, root / name)
    (root / "NOTES.md").write_text("# notes\n")
    made = [commit_all(root, "commit 0: the CSV benchmark of jmh-demo v1")]
    for k in range(1, commits):
        numbers = (root / NUMBERS).read_text()
        if k == planted:
            assert ORIGINAL_RETURN in numbers
            (root / NUMBERS).write_text(numbers.replace(ORIGINAL_RETURN, PLANTED_RETURN))
        elif k % 2:
            with open(root / "NOTES.md", "a") as notes:
                notes.write(f"- note {k}\n")
        else:
            reworded = re.sub(r"A tiny (\(rev \d+\) )?number-crunching library", f"A tiny (rev {k}) number-crunching library",
                              numbers, count=1)
            assert reworded != numbers
            (root / NUMBERS).write_text(reworded)
        made.append(commit_all(root, subject(k, planted)))
    return made


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3, 4):
        sys.exit("usage: python -m tests.e2e.bisect_repo DIR [PLANTED_COMMIT [COMMITS]]")
    planted = int(sys.argv[2]) if len(sys.argv) >= 3 else PLANTED
    count = int(sys.argv[3]) if len(sys.argv) == 4 else COMMITS
    for k, sha in enumerate(make_repo(Path(sys.argv[1]), planted, count)):
        print(sha[:12], subject(k, planted) if k else "commit 0: the CSV benchmark of jmh-demo v1")
