"""``rigorbench report`` on the command line: inputs like compare and analyze, clear errors."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from rigorbench.cli import main

JMH = Path(__file__).resolve().parents[1] / "testdata" / "jmh"
GOOD = JMH / "v1-trial1.json"
OTHER = JMH / "v2-trial1.json"


def report(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(["report", *argv], out, err), out.getvalue(), err.getvalue()


def test_two_files_make_a_comparison_report(tmp_path):
    path = tmp_path / "out" / "r.html"
    code, out, err = report(str(GOOD), str(OTHER), "--html", str(path), "--resamples", "500")
    assert code == 0 and out == ""
    assert err == f"report: {path.resolve()}\n"
    text = path.read_text()
    assert "v1-trial1 (baseline) against v2-trial1 (contender); 4 benchmark cases" in text
    assert text.count('class="verdict v-') >= 8   # counts, plus one chip per case


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_sees_progress_of_both_stages(tmp_path):
    err = Terminal()
    code = main(["report", str(GOOD), str(OTHER), "--html", str(tmp_path / "r.html"), "--resamples", "500"], io.StringIO(), err)
    assert code == 0
    lines = err.getvalue().split("\n")
    assert lines[0].endswith("\rreport: analysing 4/4 benchmarks") and "\rreport: analysing 1/4 benchmarks" in lines[0]
    assert lines[1].endswith("\rreport: drawing 4/4 benchmarks")
    assert lines[2] == f"report: {(tmp_path / 'r.html').resolve()}"


def test_one_file_is_one_version(tmp_path):
    code, _, err = report(str(GOOD), "-o", str(tmp_path / "r.html"), "--resamples", "500")
    assert code == 0, err
    text = (tmp_path / "r.html").read_text()
    assert "one version, v1-trial1" in text and "RCIW" in text


@pytest.mark.parametrize("argv, message", [
    ([str(GOOD), str(OTHER)], "say where to write: --html FILE, --format csv, or --data-dir DIR"),
    ([str(GOOD), str(OTHER), str(GOOD), "--html", "x.html"], "got 3 files: give BASELINE CONTENDER"),
    (["--baseline", str(GOOD), "--html", "x.html"], "--baseline and --contender go together"),
    ([str(JMH / "nope.json"), "--html", "x.html"], "nope.json"),
    (["--version", "v1", str(GOOD), "--html", "x.html"], "--version and --run go with --store"),
    ([str(GOOD), "--html", "a.html", "-o", "b.html"], "--html FILE and --output FILE name the same HTML file"),
])
def test_bad_usage_is_one_line_and_exit_2(argv, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = report(*argv)
    assert code == 2 and message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "x.html").exists()


def test_unwritable_output_is_a_clear_error(tmp_path):
    (tmp_path / "file").write_text("")
    code, _, err = report(str(GOOD), "--html", str(tmp_path / "file" / "r.html"), "--resamples", "500")
    assert code == 2 and "cannot write" in err and str(tmp_path / "file") in err


def _project(tmp_path: Path) -> Path:
    for label in ("v1", "v2"):
        (tmp_path / "proj" / label / "src").mkdir(parents=True)
        (tmp_path / "proj" / label / "src" / "B.java").write_text(
            "import org.openjdk.jmh.annotations.*;\npublic class B {\n  @Benchmark\n  public void m() { Math.log(2.0); }\n}\n")
    return tmp_path / "proj"


def test_ab_writes_the_report_with_lint_findings_and_report_reads_the_store(tmp_path, fake):
    store = str(tmp_path / "r.db")
    html = tmp_path / "ab.html"
    out, err = io.StringIO(), io.StringIO()
    code = main(["ab", str(_project(tmp_path)), "--base", "v1", "--contender", "v2", "--trials", "3", "--store", store,
                 "--html", str(html), "--resamples", "500"], out, err)
    assert code in (0, 1), err.getvalue()
    assert f"HTML report: {html.resolve()}" in err.getvalue()
    text = html.read_text()
    assert 'id="lint"' in text and "src/B.java:4" in text and "RETU" in text   # from the pre-build lint
    assert "version v1" in text and "3 trials, rmit order" in text               # the stored run's facts
    run_setting = re.search(r"<th>setting run</th><td>(.*?)</td>", text).group(1)
    assert "forks=" in run_setting and "None" not in run_setting and "{" not in run_setting   # readable, unset left out

    code, _, err_text = report("--store", store, "--html", str(tmp_path / "s.html"), "--resamples", "500")
    assert code == 0, err_text
    assert "v1 (baseline) against v2 (contender)" in (tmp_path / "s.html").read_text()
    code, _, err_text = report("--store", store, "--version", "v2", "--html", str(tmp_path / "one.html"), "--resamples", "500")
    assert code == 0 and "one version, v2" in (tmp_path / "one.html").read_text()
    code, _, err_text = report("--store", store, "--baseline", "v1", "--contender", "v9", "--html", str(tmp_path / "x.html"))
    assert code == 2 and "no run with versions 'v1' and 'v9'" in err_text


@pytest.mark.parametrize("name, cases", [("go/bench.txt", 9), ("jmh/v1-sample.json", 1), ("jmh/v1-sample.log", 1)])
def test_every_input_format_reports(name, cases, tmp_path):
    path = tmp_path / "r.html"
    code, _, err = report(str(JMH.parent / name), "--html", str(path), "--resamples", "500")
    assert code == 0, err
    text = path.read_text()
    assert text.count('<section class="case"') == cases
    assert text.count('data-kind="iterations"') == cases


def test_what_does_not_match_or_failed_is_said_first_in_the_page(tmp_path):
    sample = JMH / "v1-sample.json"
    code, _, err = report(str(sample), str(OTHER), "--html", str(tmp_path / "r.html"), "--resamples", "500")
    assert code == 2 and "benchmark modes differ" in err and "--allow-mismatch" in err
    path = tmp_path / "allowed.html"
    code, _, _ = report(str(sample), str(OTHER), "--html", str(path), "--resamples", "500", "--allow-mismatch")
    text = path.read_text()
    alert = text.index("NOT COMPARABLE, compared anyway (--allow-mismatch): dev.rigorbench.demo.CsvParseBenchmark.sumCsv")
    assert code == 0 and alert < text.index('<table') and "only in contender (not compared)" in text
