"""The compare table read at a glance: the terminal's width, names whole, one unit per column,
regressions first, geomean, grouping."""

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
    row = next(line for line in text.splitlines() if "StatsBenchmark.standardize{size=1000}" in line)
    assert row.startswith("StatsBenchmark.standardize{size=1000} ") and "inconclusive" in row, \
        "typical names are whole and on the line of their figures"
    assert "Cliff's d" not in text.splitlines()[0] and " p " not in text.splitlines()[0]
    wide = compare("--baseline", *BASE, "--contender", *CONT, "--wide")
    assert "Cliff's d" in wide and "  p  " in wide.splitlines()[0] and "large" in wide
    assert "delta" not in wide.splitlines()[0]


def _renamed(tmp_path: Path, name: str) -> list[str]:
    paths = []
    for file, source in (("a.json", JMH / "v1-trial1.json"), ("b.json", JMH / "v2-trial1.json")):
        document = json.loads(source.read_text(encoding="utf-8"))
        document[0]["benchmark"] = name
        (tmp_path / file).write_text(json.dumps(document), encoding="utf-8")
        paths.append(str(tmp_path / file))
    return paths


def test_a_name_too_long_for_the_width_gets_its_own_line_whole(tmp_path, monkeypatch):
    long = "org.example.very.long.pkg.AnExtremelyLongBenchmarkClassNameForTestingPurposes.measure"
    paths = _renamed(tmp_path, long)
    for columns in (100, 80, 70, 50):   # the figures alone need about 65 columns
        monkeypatch.setenv("COLUMNS", str(columns))
        lines = compare(*paths).splitlines()
        named = [i for i, line in enumerate(lines) if "AnExtremelyLong" in line and not line.startswith(" ")]
        assert len(named) == 1 and lines[named[0]].endswith("ForTestingPurposes.measure"), (columns, lines)
        figures = lines[named[0] + 1]   # the row's cells, on the next line, under their headers
        assert figures.startswith(" ") and figures.rstrip().endswith(("faster*", "slower*", "inconclusive*", "unchanged*"))
        header = lines[named[0] - 1] if "verdict" in lines[named[0] - 1] else lines[named[0] - 2]
        assert header.index("verdict") == len(figures.rstrip()) - len(figures.rstrip().split()[-1])
        table = lines[:lines.index("")] + lines[lines.index("") + 1:next(i for i, line in enumerate(lines) if "comparisons:" in line)]
        if columns >= 70:
            assert all(len(line) <= columns for line in table if "AnExtremelyLong" not in line), (columns, table)
    assert "\u2026" not in compare(*paths)


def test_the_width_is_the_terminal_s_or_columns_and_100_elsewhere(monkeypatch):
    from rigorbench.terminal import text_width

    monkeypatch.delenv("COLUMNS", raising=False)
    assert text_width(io.StringIO()) == 100, "a pipe or a file"
    monkeypatch.setenv("COLUMNS", "72")
    assert text_width(io.StringIO()) == 72
    monkeypatch.setenv("COLUMNS", "12")
    assert text_width(io.StringIO()) == 40, "never narrower than 40"
    monkeypatch.setenv("COLUMNS", "wide")
    assert text_width(io.StringIO()) == 100
    monkeypatch.setenv("COLUMNS", "72")
    args = ("--baseline", *BASE, "--contender", *CONT)
    text = compare(*args)
    notes = text[text.index("comparisons:"):].splitlines()
    assert max(map(len, notes)) <= 72 and max(map(len, notes)) > 60, "notes and warnings wrap at the width"


def test_one_metric_is_one_table_in_one_unit_per_column(tmp_path):
    """ns/op and us/op of one metric were two tables; a value of 1041000 ns/op read '1041k'."""
    text = compare("--baseline", *BASE, "--contender", *CONT)
    assert text.count("time [") == 1 and "time [ns/op]" in text
    row = next(line for line in text.splitlines() if line.startswith("CsvParseBenchmark.sumCsv"))
    assert row.split()[1] == "1324", "sumCsv's 1.324 us/op in the ns/op column"
    paths = []
    for file, source, scale in (("a.json", JMH / "v1-trial1.json", 1e6), ("b.json", JMH / "v2-trial1.json", 1e6)):
        document = [entry for entry in json.loads(source.read_text(encoding="utf-8")) if entry["mode"] == "avgt"]
        for entry in document:
            entry["primaryMetric"]["scoreUnit"] = "ns/op"
            entry["primaryMetric"]["rawData"] = [[v * scale for v in fork] for fork in entry["primaryMetric"]["rawData"]]
            entry["primaryMetric"]["score"] *= scale
        (tmp_path / file).write_text(json.dumps(document), encoding="utf-8")
        paths.append(str(tmp_path / file))
    text = compare(*paths)
    assert "time [ms/op]" in text and "k ±" not in text and "M ±" not in text
    document = json.loads(compare(*paths, "--format", "json"))
    assert {c["unit"] for c in document["comparisons"]} == {"ns/op"}, "JSON keeps the unit as measured"


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
    # too long for 100 columns once escaped: each name on its line, its figures below it
    end = next(i for i, line in enumerate(lines) if "comparisons:" in line)
    named = [i for i, line in enumerate(lines[:end]) if "\\x1b[2J" in line]
    assert len(named) == 2 and all(lines[i].startswith("StatsBenchmark.standardize") for i in named)
    rows = [lines[i + 1] for i in named]
    assert {row.index("inconclusive") for row in rows} == {lines[header].index("verdict")}
    assert {row.index("%  ") for row in rows} == {lines[header].index(" a ") + 1}   # the baseline column ends alike


def test_notes_wrap_between_words_but_not_inside_a_short_group_and_stay_escaped():
    from rigorbench.terminal import wrapped

    hint = "hint: variance is inside each fork's iteration series: run more or longer iterations (-i, -r)"
    for width in range(40, 101):
        lines = wrapped(hint, width, "  ", "      ")
        assert all(len(line) <= width for line in lines), width
        assert " ".join(" ".join(lines).split()) == hint
        assert any("(-i, -r)" in line for line in lines), (width, lines)
    assert wrapped("a\x1bb\nc (x y)", 40) == ["a\\x1bb\\nc (x y)"]
    assert wrapped("", 40, "  ") == [""]
