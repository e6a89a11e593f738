"""The HTML report as a document: complete, self-contained, escaped, navigable."""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from rigorbench.analysis.dataset import load_dataset
from rigorbench.analysis.report import build_page
from rigorbench.analysis.settings import Settings
from rigorbench.report.report import OPEN_SECTIONS, render_html
from rigorbench.report.plots import inline_svg

from .conftest import JMH, SUITE_SIZE
from synthetic_suite import HOSTILE_NAME, SLOWDOWN


class Page(HTMLParser):
    """Tags, ids, link targets, section headings and text, as a browser would parse them."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: Counter = Counter()
        self.ids: list[str] = []
        self.links: list[str] = []
        self.urls: list[str] = []
        self.headings: list[str] = []
        self.sections: list[tuple[str, bool]] = []   # (id, open)
        self._in_h3 = False
        self._section = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags[tag] += 1
        if "id" in attrs:
            self.ids.append(attrs["id"])
        for name in ("src", "href", "xlink:href"):
            if attrs.get(name):
                (self.links if attrs[name].startswith("#") else self.urls).append(attrs[name])
        if tag == "section":
            self._section = attrs.get("id") if attrs.get("class") == "case" else None
        if tag == "details" and self._section:
            self.sections.append((self._section, "open" in attrs))
        if tag == "h3":
            self._in_h3 = True
            self.headings.append("")

    def handle_endtag(self, tag):
        if tag == "h3":
            self._in_h3 = False
        if tag == "section":
            self._section = None

    def handle_data(self, data):
        if self._in_h3:
            self.headings[-1] += data


def _case_anchors(page: Page) -> list[str]:
    return [i for i, _ in page.sections]


def test_example_report_has_every_part(example_html):
    text = example_html.read_text()
    page = Page(text)
    assert len(page.sections) == 4 and len(page.headings) == 4
    # Each case: iteration series, distributions, ratio and allocation (all recorded).
    kinds = re.findall(r'data-kind="(\w+)"', text)
    assert Counter(kinds) == {"iterations": 4, "distribution": 4, "ratio": 4, "allocation": 4}
    assert page.tags["svg"] == 4 * 4 + 1   # plus the scaling plot of StatsBenchmark over size
    assert 'id="scaling"' in text and "(2 values: too few for a growth exponent (3 or more))" in text
    assert 'id="lint"' in text and "RETU" in text and "ParseBenchmark.java" in text
    assert "jdk_version" in text and "17.0.15" in text   # the environment JMH recorded
    assert "steady_state_unchecked" in text              # analyze's diagnostics, in words
    # The navigation table links to every section, and every link has a target.
    targets = {link[1:] for link in page.links}
    assert set(_case_anchors(page)) <= targets
    assert targets <= set(page.ids)


def test_the_page_is_self_contained(example_html):
    page = Page(example_html.read_text())
    assert page.urls == []                  # no src/href leaving the page
    assert page.tags["link"] == 0 and page.tags["img"] == 0 and page.tags["iframe"] == 0
    assert page.tags["script"] == 1         # ours: sorting, filter, opening sections


def test_ids_are_unique_across_all_figures(suite_html):
    page = Page(suite_html.read_text())
    duplicated = [i for i, n in Counter(page.ids).items() if n > 1]
    assert duplicated == []
    assert len(page.ids) > 1000             # clip paths and markers of hundreds of figures


def test_hostile_names_are_text_not_markup(suite_html):
    text = suite_html.read_text()
    page = Page(text)
    assert HOSTILE_NAME in page.headings    # shown as the heading's text ...
    assert HOSTILE_NAME not in text         # ... because it was never written as markup
    assert page.tags["script"] == 1


def test_a_hostile_label_and_environment_are_escaped(tmp_path):
    evil = '"><img src=x onerror=alert(1)>'
    base = load_dataset([JMH / "v1-trial1.json"], evil)
    head = load_dataset([JMH / "v2-trial1.json"], "v2")
    env = {"os": "<b>bold</b>", "hostname": "a'b\"c"}
    base = type(base)(base.label, base.series, base.sources, (env,), base.warnings)
    text = render_html(build_page([base, head], Settings(resamples=500)))
    page = Page(text)
    assert page.tags["img"] == 0 and "<b>bold" not in text
    assert "onerror=alert(1)&gt;" in text and "&lt;b&gt;bold&lt;/b&gt;" in text


def test_suite_sections_are_ordered_regressions_first_and_large_suites_start_collapsed(suite_html):
    text = suite_html.read_text()
    page = Page(text)
    assert len(page.sections) == SUITE_SIZE
    verdicts = re.findall(r'<section class="case" id="b\d+"><details(?: open)?><summary>.*?class="verdict v-(\w+)"', text)
    assert len(verdicts) == SUITE_SIZE
    rank = {"slower": 0, "faster": 1, "inconclusive": 2, "unchanged": 3}
    assert [rank[v] for v in verdicts] == sorted(rank[v] for v in verdicts)
    assert verdicts.count("slower") >= 4     # the planted slowdowns (every 10th, +25%: 5) are found
    opened = [is_open for _, is_open in page.sections]
    assert opened == [True] * OPEN_SECTIONS + [False] * (SUITE_SIZE - OPEN_SECTIONS)


def test_scaling_exponent_of_the_suite_is_recovered(suite_html):
    text = suite_html.read_text()
    exponents = [float(x) for x in re.findall(r"base: (-?\d+\.\d+)", text)]
    assert len(exponents) >= 10              # one per scaling group
    # The suite plants time = 2 n^1.5 with 3% noise: every fitted exponent is close to 1.5.
    assert all(abs(e - 1.5) < 0.05 for e in exponents), exponents


def test_inline_svg_prefixes_every_id_and_reference():
    svg = ('<?xml version="1.0"?><!DOCTYPE svg><svg xmlns:xlink="x" width="1pt"><defs><clipPath id="p1"/></defs>'
           '<path id="m2" d="M 0.123456 1.987654"/><g clip-path="url(#p1)"><use xlink:href="#m2"/></g></svg>')
    out = inline_svg(svg, "b7i", 'a "quoted" <label>')
    assert out.startswith('<svg class="plot" role="img" aria-label="a &quot;quoted&quot; &lt;label&gt;"')
    assert 'id="b7i-p1"' in out and 'url(#b7i-p1)' in out and 'href="#b7i-m2"' in out
    assert 'd="M 0.12 1.98"' in out and "<?xml" not in out


@pytest.mark.parametrize("fixture", ["long_html"])
def test_one_version_report_marks_steady_state_gc_and_jit(fixture, request):
    text = Path(request.getfixturevalue(fixture)).read_text()
    assert "steady state starts" in text                     # legend of the steady-state marks
    assert "GC in iteration" in text and "JIT compilation in iteration" in text
    counts = re.search(r"GC in (\d+) of (\d+) iterations, JIT compilation in (\d+) of (\d+) iterations", text)
    assert counts and counts.group(2) == counts.group(4) and int(counts.group(1)) <= int(counts.group(2))
    assert "change [" not in text and 'data-kind="ratio"' not in text   # nothing to compare
    assert "RCIW" in text


def test_planted_change_is_visible_in_the_summary(suite_html):
    text = suite_html.read_text()
    # Every planted slowdown is 25%: the 'slower' rows' changes are near +25%.
    changes = [float(x) for x in re.findall(r'<tr class="v-slower">.*?data-sort="(-?[\d.e+-]+)">[^<]*\[', text)]
    assert changes and all(abs(c - (SLOWDOWN - 1) * 100) < 6 for c in changes), changes


@pytest.mark.slow   # figures of a 16-benchmark suite drawn twice
def test_figures_drawn_in_a_process_pool_or_here_are_the_same(tmp_path, monkeypatch):
    from synthetic_suite import write_suite

    from rigorbench.report import plots

    base, head = write_suite(tmp_path, size=16, trials=2, forks=2, iterations=5)
    report = build_page([load_dataset(base, "base"), load_dataset(head, "head")], Settings(resamples=200))
    assert len(report.cases) >= plots._MIN_PARALLEL_CASES
    monkeypatch.setattr(plots, "_workers", lambda: 2)
    pooled = list(plots.all_case_figures(report.cases, report.settings))

    from rigorbench import parallel

    # No fork (a sandbox without semaphores, or other threads alive): drawn here, one by one.
    monkeypatch.setattr(parallel, "_process_pool", lambda workers: None)

    def no_threads(*args, **kwargs):
        raise AssertionError("matplotlib must not draw on threads")

    monkeypatch.setattr("concurrent.futures.ThreadPoolExecutor", no_threads)
    here = list(plots.all_case_figures(report.cases, report.settings))
    assert here == pooled == [plots.case_figures(case, report.settings) for case in report.cases]


def test_benchmarks_come_before_the_environment_whose_differences_come_first(tmp_path):
    base = load_dataset([JMH / "v1-trial1.json"], "v1")
    head = load_dataset([JMH / "v2-trial1.json"], "v2")
    same = {f"fact{i:02d}": "same" for i in range(30)}
    base = type(base)(base.label, base.series, base.sources, ({**same, "jvm": "17.0.1", "governor": "<performance>"},), base.warnings)
    head = type(head)(head.label, head.series, head.sources, ({**same, "jvm": "21.0.2", "governor": "<performance>"},), head.warnings)
    text = render_html(build_page([base, head], Settings(resamples=200)))
    assert text.index('<section class="case"') < text.index('id="environment"')
    nav = re.search(r"<nav>(.*?)</nav>", text).group(1)
    assert nav.index("#benchmarks") < nav.index("#environment")
    environment = text[text.index('id="environment"'):]
    shown, collapsed = environment.split('<details class="env">', 1)
    assert "1 of 32 facts differ" in shown
    assert re.search(r"<th>jvm</th><td[^>]*>17\.0\.1</td><td[^>]*>21\.0\.2</td>", shown)
    assert "fact00" not in shown and "governor" not in shown
    assert "31 facts the same throughout" in collapsed and "fact29" in collapsed
    assert "&lt;performance&gt;" in collapsed and "<performance>" not in text


def test_plots_say_warmup_included_only_when_the_inputs_hold_warmup(example_html, long_html):
    """JMH's JSON keeps no warmup iterations (tests/testdata/jmh/long-v2), its console log
    does (v1-trial1.log): the iteration plots and the event counts say which (issue 35)."""
    with_logs, json_only = example_html.read_text(), long_html.read_text()
    assert "iteration within fork (warmup included)" in with_logs
    assert "(warmup included)" not in json_only
    assert "iteration within fork (measurement only)" in json_only
    assert "JIT compilation in " in json_only       # the event counts are there, without the claim


@pytest.mark.parametrize("test, evidence_hidden", [("bootstrap", True), ("wilcoxon", False)])
def test_the_verdict_follows_the_name_and_the_evidence_gives_way_when_narrow(test, evidence_hidden):
    base = load_dataset([JMH / "v1-trial1.json"], "v1")
    head = load_dataset([JMH / "v2-trial1.json"], "v2")
    text = render_html(build_page([base, head], Settings(resamples=200, test=test)))
    header = re.search(r'<table id="overview".*?</thead>', text).group(0)
    assert re.findall(r"<th[^>]*>([^<]*)</th>", header)[:3] == ["benchmark", "verdict", "change [99% CI]"]
    # p and Cliff's delta are hidden below 900 px unless they decide (the Wilcoxon rule); detects always.
    assert ('<th data-num class="minor">p</th>' in header) is evidence_hidden
    assert ("<th data-num>p</th>" in header) is not evidence_hidden
    assert '<th data-num class="minor" title="the smallest change' in header
    assert "@media (max-width:900px)" in text and ".minor{display:none}" in text
    # Names may break at their dots, and the verdict is the row's second cell.
    row = re.search(r'<tbody><tr class="v-(\w+)"><td class="name"[^>]*><a [^>]*>(.*?)</a></td><td class="verdict-cell"', text)
    assert row and ".<wbr>" in row.group(2)
