"""The report in a real browser: headless Chromium (Debian's package), driven by Playwright.

The page must load without console errors, show its plots (present, laid out, visible),
show a benchmark named ``<script>alert(1)</script>`` as text (no dialog may open), sort its
table and open a collapsed section when its link is followed. Screenshots go to pytest's
temporary directory, and also to $RIGORBENCH_SCREENSHOTS when that is set, to look at.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from synthetic_suite import HOSTILE_NAME

from .conftest import LONG_NAMES, SUITE_SIZE

# The flags this machine's Chromium needs to start headless without reaching the network
# (environment notes: without the background-networking flags it tries Google's hosts).
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("Chromium is not installed (Debian package 'chromium', which 'make test' installs where it can); "
                    "the browser checks of the HTML report are skipped")
    return path


@pytest.fixture(scope="module")
def browser():
    executable = _chromium()
    # Playwright is a test extra ('make test' installs it): missing, the suite must fail, not skip.
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=executable, headless=True, args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 900},
        )
        yield context
        context.close()


class Visit:
    def __init__(self, context, path: Path, shots: Path, *, width: int | None = None) -> None:
        self.problems: list[str] = []
        self.dialogs: list[str] = []
        self.page = context.new_page()
        if width is not None:
            self.page.set_viewport_size({"width": width, "height": 900})
        self.page.on("console", lambda m: self.problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("requestfailed", lambda r: self.problems.append(f"request failed: {r.url}"))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.goto(path.as_uri(), wait_until="load")
        self.shots = shots

    def screenshot(self, name: str, **options) -> Path:
        path = self.shots / name
        self.page.screenshot(path=str(path), **options)
        extra = os.environ.get("RIGORBENCH_SCREENSHOTS")
        if extra:
            Path(extra).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, Path(extra) / name)
        assert path.stat().st_size > 10_000   # a real picture, not an empty page
        return path


def _visible_plots(section) -> int:
    plots = section.locator("svg.plot")
    count = plots.count()
    for i in range(count):
        plot = plots.nth(i)
        box = plot.bounding_box()
        assert plot.is_visible() and box and box["width"] > 150 and box["height"] > 80, (i, box)
    return count


def test_example_report_renders_without_errors_and_shows_its_plots(browser, example_html, tmp_path):
    visit = Visit(browser, example_html, tmp_path)
    assert visit.problems == []
    sections = visit.page.locator("section.case")
    assert sections.count() == 4
    for i in range(4):
        assert _visible_plots(sections.nth(i)) == 4   # iterations, distribution, ratio, allocation
    assert _visible_plots(visit.page.locator("#scaling")) == 1
    # The figures' text is real text in the page (fonts resolved, nothing as paths).
    assert sections.first.locator("svg text", has_text="iteration within fork").count() == 1
    visit.screenshot("example-top.png")
    visit.page.locator("section.case").first.scroll_into_view_if_needed()
    visit.screenshot("example-first-benchmark.png")
    visit.screenshot("example-full.png", full_page=True)
    assert visit.problems == []


def test_one_version_report_in_the_browser(browser, long_html, tmp_path):
    visit = Visit(browser, long_html, tmp_path)
    first = visit.page.locator("section.case").first
    assert _visible_plots(first) == 3                 # iterations, distribution, allocation
    assert first.locator("svg text", has_text="steady state starts").count() == 1
    first.scroll_into_view_if_needed()
    visit.screenshot("one-version-first-benchmark.png")
    assert visit.problems == []


def test_hostile_name_is_text_and_the_suite_navigates(browser, suite_html, tmp_path):
    visit = Visit(browser, suite_html, tmp_path)
    page = visit.page
    assert visit.problems == [] and visit.dialogs == []
    heading = page.locator("section.case h3", has_text="alert(1)")
    assert heading.count() == 1 and heading.inner_text() == HOSTILE_NAME
    link = page.locator("#overview a", has_text="alert(1)")
    assert link.inner_text() == HOSTILE_NAME

    # Regressions first; a click on the change column sorts by the change, both ways.
    rows = page.locator("#overview tbody tr")
    assert rows.count() == SUITE_SIZE and rows.first.get_attribute("class") == "v-slower"
    header = page.locator("#overview th", has_text="change")
    column = [h.startswith("change") for h in page.locator("#overview th").all_inner_texts()].index(True) + 1
    cells = page.locator(f"#overview tbody tr td:nth-child({column})")
    header.click()
    ascending = [float(v) for v in cells.evaluate_all("cells => cells.map(c => c.getAttribute('data-sort'))")]
    assert ascending == sorted(ascending) and len(set(ascending)) > 10
    header.click()
    descending = [float(v) for v in cells.evaluate_all("cells => cells.map(c => c.getAttribute('data-sort'))")]
    assert descending == sorted(ascending, reverse=True)

    # The filter narrows the table to matching names.
    page.fill("#filter", "op13")
    assert page.locator("#overview tbody tr:visible").count() >= 1
    assert all("op13" in t for t in page.locator("#overview tbody tr:visible td:first-child").all_inner_texts())
    page.fill("#filter", "")

    # A collapsed section (beyond the first ones) opens when its link is followed.
    last = page.locator("section.case").last
    anchor = last.get_attribute("id")
    assert last.locator("details").get_attribute("open") is None
    page.locator(f'#overview a[href="#{anchor}"]').click()
    page.wait_for_function(f"document.getElementById('{anchor}').querySelector('details').open")
    assert _visible_plots(last) == 4
    visit.screenshot("suite-opened-section.png")
    page.goto(suite_html.as_uri() + "#summary")
    visit.screenshot("suite-summary.png")
    assert visit.problems == [] and visit.dialogs == []


def test_history_report_shows_series_segments_and_commit_links(browser, history_html, history_store, tmp_path):
    _, commits = history_store
    visit = Visit(browser, history_html, tmp_path)
    page = visit.page
    assert visit.problems == [] and visit.dialogs == []
    series = page.locator("section.series")
    assert series.count() == 3
    for i in range(3):
        assert _visible_plots(series.nth(i)) == 1
    # Regressions first: latency got slower; its figure draws two segment levels and the change.
    first = series.first
    assert first.get_attribute("data-regression") == "true" and first.get_attribute("data-segments") == "2"
    assert first.locator("svg text", has_text="segment level and CI").count() == 1
    assert first.locator("svg text", has_text="change: slower").count() == 1
    # The hostile metric name is text, not markup.
    assert page.locator("section.series h3 + span.muted", has_text="alert(1)").count() == 1
    # The change's commits are links to the repository.
    link = first.locator("table.changes a").last
    assert link.get_attribute("href") == f"https://github.com/owner/repo/commit/{commits[18]}"
    assert link.inner_text() == commits[18][:12] and link.is_visible()
    first.scroll_into_view_if_needed()
    visit.screenshot("history-first-series.png")
    assert visit.problems == [] and visit.dialogs == []


def test_cluster_report_shows_the_by_instance_table(browser, cluster_html, tmp_path):
    visit = Visit(browser, cluster_html, tmp_path)
    table = visit.page.locator("section.case table.instances")
    assert table.count() == 1 and table.is_visible()
    names = table.locator("tbody th")
    assert [names.nth(i).inner_text() for i in range(names.count())] == ["box-<a>&", "box-<b>&"]   # as text
    assert visit.page.locator("section.case svg.plot text", has_text="box-<b>&").count() == 2       # both panels' keys
    table.scroll_into_view_if_needed()
    visit.screenshot("cluster-by-instance.png", full_page=True)
    assert visit.problems == [] and visit.dialogs == []


# --- an 800 px window ------------------------------------------------------------------------

NARROW = 800

# Opens every collapsed part, then measures: the page's width against the window's, and each
# table that reaches past the window (or, in a scrolling box, each box that does).
_OVERFLOW = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const root = document.documentElement, limit = root.clientWidth, wide = [];
  document.querySelectorAll('table').forEach(t => {
    const box = t.closest('.scroll') || t, right = box.getBoundingClientRect().right;
    if (right > limit) wide.push((t.id || t.className || t.rows[0].cells[0].textContent) + ': ' + Math.round(right));
  });
  return {scrollWidth: root.scrollWidth, clientWidth: limit, wide: wide};
}"""


def _fits(page) -> None:
    layout = page.evaluate(_OVERFLOW)
    assert layout["scrollWidth"] <= layout["clientWidth"] <= NARROW, layout
    assert layout["wide"] == [], layout


def _answers_in_view(page, cells: str) -> float:
    """Each answer cell is visible without scrolling the page or its table's box sideways;
    returns the rightmost edge, for the record."""
    locator = page.locator(cells)
    edges = locator.evaluate_all("""cells => cells.map(c => {
      const r = c.getBoundingClientRect(), box = (c.closest('.scroll') || c.closest('table')).getBoundingClientRect();
      return {left: r.left, right: r.right, width: r.width, limit: Math.min(box.right, document.documentElement.clientWidth)};
    })""")
    assert edges, cells
    for edge in edges:
        assert 0 <= edge["left"] and edge["right"] <= edge["limit"] and edge["width"] > 20, edge
    assert all(cell.is_visible() for cell in locator.all())
    return max(edge["right"] for edge in edges)


@pytest.mark.parametrize("report", ["long_names_html", "example_html", "suite_html", "cluster_html"])
def test_an_800px_window_shows_every_verdict_without_scrolling_sideways(browser, report, request, tmp_path):
    visit = Visit(browser, request.getfixturevalue(report), tmp_path, width=NARROW)
    page = visit.page
    _answers_in_view(page, "#overview tbody td.verdict-cell")
    # The names wrap within the window rather than push the table wider.
    for link in page.locator("#overview tbody td:first-child a").all():
        edges = link.bounding_box()
        assert edges["x"] >= 0 and edges["x"] + edges["width"] <= NARROW, (link.inner_text(), edges)
    visit.screenshot(f"narrow-{report.removesuffix('_html')}-summary.png")
    _fits(page)
    for plot in page.locator("svg.plot").all()[:40]:
        edges = plot.bounding_box()
        assert edges["x"] + edges["width"] <= NARROW, edges
    assert visit.problems == [] and visit.dialogs == []


def test_long_hostile_names_wrap_as_text_at_800px(browser, long_names_html, tmp_path):
    visit = Visit(browser, long_names_html, tmp_path, width=NARROW)
    links = visit.page.locator("#overview tbody td:first-child a")
    shown = sorted(links.all_inner_texts())
    assert len(shown) == len(LONG_NAMES)
    assert any("<b>Deeply</b>NestedObjectMapperBenchmark" in name and "payload=<img src=x onerror=alert(1)>" in name
               for name in shown), shown
    assert any(name.startswith("unbroken") or "unbroken" in name for name in shown)
    # Wrapped over several lines, not cut: the longest name is taller than one line.
    heights = [link.bounding_box()["height"] for link in links.all()]
    assert max(heights) > 2 * min(heights) > 0, heights
    assert visit.page.locator("#overview b, #overview img, #overview i").count() == 0
    assert visit.dialogs == []


def test_history_report_at_800px(browser, history_html, tmp_path):
    visit = Visit(browser, history_html, tmp_path, width=NARROW)
    _answers_in_view(visit.page, "#overview tbody td.verdict-cell")
    _answers_in_view(visit.page, "table.changes tbody td:has(.verdict)")   # each change point's direction
    visit.screenshot("narrow-history-summary.png")
    _fits(visit.page)
    assert visit.problems == [] and visit.dialogs == []
