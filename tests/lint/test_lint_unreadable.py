"""``lint`` on a tree with files it cannot read: each is skipped with one warning, the rest is linted."""

from __future__ import annotations

import io
import os

import pytest

from rigorbench.cli import main
from rigorbench.lint import lint_paths

BENCH = """import org.openjdk.jmh.annotations.Benchmark;
class Good {
    double x = 1;
    @Benchmark public void m() { Math.log(x); }
}
"""


@pytest.fixture
def tree(tmp_path):
    """A directory with one good benchmark, a dangling link, a link loop and a FIFO."""
    (tmp_path / "Good.java").write_text(BENCH)
    (tmp_path / "Dangling.java").symlink_to(tmp_path / "gone.java")
    (tmp_path / "LoopA.java").symlink_to(tmp_path / "LoopB.java")
    (tmp_path / "LoopB.java").symlink_to(tmp_path / "LoopA.java")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "up").symlink_to(tmp_path, target_is_directory=True)  # a directory loop
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "Pipe.java")
    return tmp_path


def test_unreadable_files_are_skipped_with_a_reason_and_the_rest_is_linted(tree):
    result = lint_paths([tree])
    assert result.files == 1 and [f.rule for f in result.findings] == ["RETU"]
    reasons = {line.split(": ", 1)[0][len(str(tree)) + 1:]: line.split(": ", 1)[1] for line in result.skipped}
    assert reasons["Dangling.java"] == "no such file (a dangling symbolic link); skipped"
    assert reasons["LoopA.java"].startswith("cannot read: ") and reasons["LoopB.java"].endswith("; skipped")
    if hasattr(os, "mkfifo"):
        assert reasons["Pipe.java"] == "is a FIFO (named pipe), not a Java source file; skipped"
    assert len(result.skipped) == len(reasons) == (4 if hasattr(os, "mkfifo") else 3)


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_file_without_read_permission_is_skipped(tmp_path):
    (tmp_path / "Good.java").write_text(BENCH)
    locked = tmp_path / "Locked.java"
    locked.write_text(BENCH.replace("Good", "Locked"))
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running as a user who reads every file (root): unreadability cannot be simulated")
        result = lint_paths([tmp_path])
        assert result.files == 1
        assert result.skipped == (f"{locked}: cannot read: permission denied; skipped",)
    finally:
        locked.chmod(0o644)


def test_cli_prints_one_warning_line_per_skipped_file_and_exits_as_usual(tree):
    out, err = io.StringIO(), io.StringIO()
    assert main(["lint", str(tree), "--fail-on", "never"], out, err) == 0
    lines = err.getvalue().splitlines()
    assert len(lines) == (4 if hasattr(os, "mkfifo") else 3)
    assert all(line.startswith("rigorbench: warning: ") and line.endswith("; skipped") for line in lines)
    assert "Traceback" not in err.getvalue() and "RETU" in out.getvalue()


def test_a_dangling_link_given_as_the_path_is_skipped_too(tmp_path):
    link = tmp_path / "Gone.java"
    link.symlink_to(tmp_path / "nowhere.java")
    result = lint_paths([link])
    assert result.files == 0 and result.skipped == (f"{link}: no such file (a dangling symbolic link); skipped",)
