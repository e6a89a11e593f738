"""One error path: every failure is one stderr line with one ``rigorbench:`` prefix and an exit code."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

import rigorbench.cli.compare
from rigorbench.cli import EXIT_INTERNAL, main


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv", [
    ("--bogus",), ("comapre",), ("compare", "a", "b", "--confidnce", "0.9"), ("compare", "--format", "jsn", "a", "b"),
    ("compare", "a", "b", "--fail-on", "sometimes"), ("lint", "--fail-on", "warnin", "."), ("compare", "/nonexistent/x.json", "b"),
])
def test_every_usage_error_is_one_line_with_one_prefix(argv):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("rigorbench: error: ")
    assert "rigorbench: error: rigorbench" not in err and err.count("rigorbench:") == 1


def test_did_you_mean_for_commands_options_and_choices():
    assert "did you mean 'compare'?" in run("comapre")[2]
    assert "did you mean '--confidence'?" in run("compare", "a", "b", "--confidnce", "0.9")[2]
    assert "did you mean 'json'?" in run("compare", "--format", "jsn", "a", "b")[2]
    assert "did you mean" not in run("xyzzy")[2]


def test_an_internal_error_is_one_line_exit_70_and_debug_shows_the_traceback(monkeypatch):
    def broken(args, stdout, stderr):
        raise ValueError("a bug\nrigorbench: error: forged")

    monkeypatch.setattr(rigorbench.cli.compare, "run", broken)
    code, _, err = run("compare", "a", "b")
    assert code == EXIT_INTERNAL == 70 and err.count("\n") == 1
    assert err.startswith("rigorbench: internal error: ValueError: a bug\\nrigorbench: error: forged; run with --debug")
    with pytest.raises(ValueError):
        run("--debug", "compare", "a", "b")
    monkeypatch.setenv("RIGORBENCH_DEBUG", "1")
    with pytest.raises(ValueError):
        run("compare", "a", "b")


def test_an_os_refusal_names_the_file_with_exit_2(monkeypatch):
    def refused(args, stdout, stderr):
        raise PermissionError(13, "Permission denied", "/srv/results.db")

    monkeypatch.setattr(rigorbench.cli.compare, "run", refused)
    assert run("compare", "a", "b")[::2] == (2, "rigorbench: error: /srv/results.db: Permission denied\n")


def test_control_characters_in_a_file_name_are_shown_not_obeyed(tmp_path):
    name = str(tmp_path / "evil\x1b[31m\nrigorbench: error: forged.json")
    code, _, err = run("compare", name, name)
    assert code == 2 and err.count("\n") == 1 and "\\x1b[31m\\nrigorbench: error: forged.json" in err


def test_a_real_process_exits_70_without_a_traceback_only_under_debug(tmp_path):
    script = (
        "import sys, rigorbench.cli.compare as c\n"
        "def boom(*a): raise RuntimeError('boom')\n"
        "c.run = boom\n"
        "from rigorbench.cli import entry_point\n"
        "sys.argv = ['rigorbench', *sys.argv[1:]]\n"
        "entry_point()\n"
    )
    plain = subprocess.run([sys.executable, "-c", script, "compare", "a", "b"], capture_output=True, text=True)
    assert plain.returncode == 70 and "Traceback" not in plain.stderr and plain.stderr.count("\n") == 1
    debug = subprocess.run([sys.executable, "-c", script, "--debug", "compare", "a", "b"], capture_output=True, text=True)
    assert debug.returncode == 1 and "Traceback" in debug.stderr and "RuntimeError: boom" in debug.stderr


def test_a_hostile_benchmark_name_is_escaped_in_compare_analyze_and_markdown(tmp_path):
    import json
    from pathlib import Path

    jmh = Path(__file__).resolve().parents[1] / "testdata" / "jmh"
    hostile = "a.B.x\x1b[2J\rrigorbench: error: forged\nrow"
    for name in ("v1-trial1.json", "v2-trial1.json"):
        document = json.loads((jmh / name).read_text(encoding="utf-8"))
        document[0]["benchmark"] = hostile
        (tmp_path / name).write_text(json.dumps(document), encoding="utf-8")
    base, cont = str(tmp_path / "v1-trial1.json"), str(tmp_path / "v2-trial1.json")
    for argv in (("compare", base, cont), ("compare", base, cont, "--format", "markdown"), ("analyze", base)):
        code, out, err = run(*argv)
        assert code == 0, err
        assert "\x1b" not in out and "\r" not in out and "\nrigorbench: error: forged" not in out
        assert "\\x1b[2J" in out or "\\\\x1b\\[2J" in out


def test_the_list_command_module_does_not_shadow_the_builtin_for_main():
    import rigorbench.cli.list  # noqa: F401 - binds ``list`` in the package namespace

    assert run("--bogus")[0] == 2 and run("--version")[0] == 0


@pytest.mark.parametrize("extra, message", [
    (("--futility", "5%"), "--futility goes with --until-decided"),
    (("--until-decided", "--futility", "60%"), "--futility must lie between 0% and 50%, got 60%"),
    (("--until-decided", "--futility", "often"), "not a number or percentage"),
])
def test_adaptive_options_are_refused_before_anything_is_built(tmp_path, extra, message):
    code, out, err = run("ab", str(tmp_path), "--base", "v1", "--contender", "v2", "--store", str(tmp_path / "r.db"), *extra)
    assert code == 2 and message in err and err.count("\n") == 1
    assert not (tmp_path / "r.db").exists()


def test_a_failed_build_shows_its_output_as_indented_lines_each_escaped(tmp_path):
    # The first line is the error; how to reproduce it and the build's last lines follow,
    # one per line (they were one line joined by a literal \n), control characters escaped.
    script = "for i in $(seq 1 25); do echo \"[ERROR] line $i\"; done; printf \"bell \\007 cr \\r!\\n\"; exit 1"
    command = f"sh -c '{script}'"
    code, out, err = run("list", str(tmp_path), "--build-command", command, "--jar", "x.jar")
    lines = [line for line in err.splitlines() if not line.startswith(("building ", "$ "))]
    assert code == 2 and out == ""
    assert lines[0].startswith("rigorbench: error: version working tree: build failed: `sh -c ")
    assert lines[0].endswith("exited with code 1") and "reproduce" not in lines[0]
    assert lines[1] == f"  reproduce it with: cd {tmp_path} && {command}"
    assert lines[2] == "  last lines of its output:"
    assert lines[3:] == [f"    [ERROR] line {i}" for i in range(7, 26)] + ["    bell \\x07 cr \\r!"]
    assert "\x07" not in err and "\r" not in err
