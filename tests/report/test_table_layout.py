"""The compare table read at a glance: 100 columns, regressions first, geomean, grouping."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rigorbench.cli import main
from rigorbench.report.table import RIGHT, Column, Group, Row, Table, layout_text

JMH = Path(__file__).resolve().parents[1] / "testdata" / "jmh"
GO = Path(__file__).resolve().parents[1] / "testdata" / "go" / "bench.txt"
BASE = [str(JMH / "v1-trial1.json"), str(JMH / "v1-trial2.json")]
CONT = [str(JMH / "v2-trial1.json"), str(JMH / "v2-trial2.json")]


def compare(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    code = main(["compare", *argv], out, err)
    assert code in (0, 1), err.getvalue()
    return out.getvalue()


def test_the_text_fits_100_columns_and_wide_shows_every_column():
    text = compare("--baseline", *BASE, "--contender", *CONT)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "StatsBenchmark.standardize{size=1000}" in text, "typical names are not cut"
    assert "Cliff's d" not in text.splitlines()[0] and " p " not in text.splitlines()[0]
    wide = compare("--baseline", *BASE, "--contender", *CONT, "--wide")
    assert "Cliff's d" in wide and "  p  " in wide.splitlines()[0] and "large" in wide
    assert "delta" not in wide.splitlines()[0]


def test_long_names_are_cut_in_the_middle_keeping_the_method_and_parameters(tmp_path):
    long = "org.example.very.long.pkg.AnExtremelyLongBenchmarkClassNameForTestingPurposes.measure"
    for name, source in (("a.json", JMH / "v1-trial1.json"), ("b.json", JMH / "v2-trial1.json")):
        document = json.loads(source.read_text(encoding="utf-8"))
        document[0]["benchmark"] = long
        (tmp_path / name).write_text(json.dumps(document), encoding="utf-8")
    text = compare(str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert max(len(line) for line in text.splitlines() if not line.startswith(" ")) <= 100
    row = next(line for line in text.splitlines() if "\u2026" in line)
    assert row.split()[0].endswith("Purposes.measure")


def test_regressions_come_first_in_text_json_and_csv_with_a_geometric_mean_per_section():
    args = ("--baseline", *BASE, "--contender", *CONT, "--metric", "all")
    document = json.loads(compare(*args, "--format", "json"))
    ranks = {"slower": 0, "faster": 1, "inconclusive": 2, "unchanged": 3}
    order = [ranks[c["verdict"]] for c in document["comparisons"]]
    assert order == sorted(order)
    csv_verdicts = [line.split(",")[24] for line in compare(*args, "--format", "csv").splitlines()[1:]]
    assert [ranks[v] for v in csv_verdicts] == sorted(ranks[v] for v in csv_verdicts)
    text = compare(*args)
    assert "geometric mean of" in text


def test_only_changed_keeps_the_counts_of_all():
    everything = compare("--baseline", *BASE, "--contender", *CONT)
    changed = compare("--baseline", *BASE, "--contender", *CONT, "--only-changed")
    assert "inconclusive" in everything.split("comparisons:")[0]
    assert "inconclusive" not in changed.split("comparisons:")[0].split("\n", 1)[1]
    assert "4 comparisons:" in changed and "(--only-changed)" in changed


def test_a_warning_many_benchmarks_share_is_one_line(tmp_path):
    # The contender: the same lines in reverse order (the same file on both sides is refused).
    lines = GO.read_text().splitlines(keepends=True)
    config = [line for line in lines if not line.startswith("Benchmark")]
    other = tmp_path / "other.txt"
    other.write_text("".join(config + [line for line in reversed(lines) if line.startswith("Benchmark")]))
    text = compare(str(GO), str(other), "--metric", "all")
    warnings = text.split("warnings:\n", 1)[1]
    # both sides, once, then what to do, once (issue 35: the hint was only in JSON)
    assert warnings.count("all values come from one fork") == 1
    assert "baseline and contender: all values come from one fork: 29 benchmarks (" in " ".join(warnings.split())
    hints = [line for line in warnings.splitlines() if line.startswith("    hint: ")]
    assert hints and len(hints) == len(set(hints))


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_on_a_terminal_only_and_never_with_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    args = ["compare", "--baseline", *BASE, "--contender", *CONT]
    out = Terminal()
    assert main(args, out, io.StringIO()) == 0
    assert "\x1b[1;32mfaster*\x1b[0m" in out.getvalue()
    assert "\x1b" not in compare("--baseline", *BASE, "--contender", *CONT), "not a terminal"
    for extra in (["--color", "never"], ["--format", "json"], ["--format", "markdown"]):
        out = Terminal()
        main([*args, *extra], out, io.StringIO())
        assert "\x1b" not in out.getvalue(), extra
    monkeypatch.setenv("NO_COLOR", "1")
    out = Terminal()
    main(args, out, io.StringIO())
    assert "\x1b" not in out.getvalue()
    assert "\x1b[" in compare(*args[1:], "--color", "always")


def test_names_with_control_characters_are_escaped_before_the_widths_are_measured():
    table = Table([Column("benchmark"), Column("score", RIGHT), Column("verdict")],
                  [Group([Row(["a\x1bb", "1.5", "slower"]), Row(["x\ty", "10.25", "faster"]), Row(["plain.name", "3", "unchanged"])])])
    lines = layout_text(table)
    assert not any(ch in "".join(lines) for ch in "\x1b\t")
    assert lines[1].startswith("a\\x1bb ") and lines[2].startswith("x\\ty ")
    scores_end = {line.index(score) + len(score) for line, score in zip(lines[1:], ["1.5", "10.25", "3"])}
    verdicts_start = {line.index(verdict) for line, verdict in zip(lines[1:], ["slower", "faster", "unchanged"])}
    assert len(scores_end) == 1 and len(verdicts_start) == 1 and lines[0].index("verdict") in verdicts_start


def test_compare_keeps_its_columns_when_a_benchmark_name_holds_a_control_character(tmp_path):
    for name, source in (("a.json", JMH / "v1-trial1.json"), ("b.json", JMH / "v2-trial1.json")):
        document = json.loads(source.read_text(encoding="utf-8"))
        for entry in document:
            if entry["benchmark"].endswith("standardize"):
                entry["benchmark"] += "\x1b[2J"
        (tmp_path / name).write_text(json.dumps(document), encoding="utf-8")
    text = compare(str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert "\x1b" not in text and "dardize\\x1b[2J{size=100}" in text
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("time [ns/op]"))
    rows = [line for line in lines[header + 1:header + 3] if "\\x1b[2J" in line]
    assert len(rows) == 2 and {row.index("inconclusive") for row in rows} == {lines[header].index("verdict")}
    assert {row.index("%  ") for row in rows} == {lines[header].index(" a ") + 1}   # the baseline column ends alike
