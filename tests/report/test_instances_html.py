"""The report of data measured on several instances: the by-instance table and the named
fork traces, from a real SQLite store; one instance keeps the report as it was."""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

from .conftest import CLUSTER_NAMES, run_cli, write_cluster_store


def _rows(html: str) -> list[str]:
    table = re.search(r'<table class="instances">(.*?)</table>', html, re.S)
    assert table is not None, "no by-instance table"
    return re.findall(r"<tbody>(.*?)</tbody>", table.group(1), re.S)[0].split("</tr>")[:-1]


def test_two_instances_get_the_by_instance_table_with_escaped_names(cluster_html):
    html = cluster_html.read_text()
    assert html.count('<table class="instances">') == 1
    for name in CLUSTER_NAMES:
        assert "<" + name.split("<", 1)[1] not in html          # never raw, in the table or the figures
    rows = _rows(html)
    assert [re.search(r"<th>(.*?)</th>", row).group(1) for row in rows] == [escape(n) for n in CLUSTER_NAMES]
    cells = [re.findall(r'<td class="num">(.*?)</td>', row) for row in rows]
    # Per version: trials, mean, % from its mean; then contender / baseline on the instance.
    assert [c[0] for c in cells] == ["2", "2"] and [c[3] for c in cells] == ["2", "2"]
    assert all(c[1].endswith("ns/op") for c in cells)
    slow = [float(c[2].rstrip("%")) for c in cells]             # box-b is 30% slower: +13% against the mean
    assert slow[0] < -10 and slow[1] > 10
    ratios = [float(c[6].split()[0]) for c in cells]
    assert all(1.03 < r < 1.07 for r in ratios)                  # v2 is 5% slower on each machine
    # The iteration plot names each instance (matplotlib escapes its text as XML).
    figure = re.search(r'data-kind="iterations">(.*?)</figure>', html, re.S).group(1)
    assert all(figure.count(escape(n, quote=False)) >= 2 for n in CLUSTER_NAMES)   # in both versions' legends


def test_one_instance_has_no_by_instance_table(tmp_path):
    db = write_cluster_store(tmp_path / "one.db", ("only-box",), trials_per_instance=3)
    path = tmp_path / "one.html"
    code, _, err = run_cli("report", "--store", str(db), "--html", str(path), "--resamples", "500")
    assert code == 0, err
    html = path.read_text()
    assert "By instance" not in html and 'class="instances"' not in html
    assert 'data-kind="iterations"' in html and "only-box" not in re.search(
        r'data-kind="iterations">(.*?)</figure>', html, re.S).group(1)


def test_instance_based_rows_say_where_a_version_did_not_run(tmp_path):
    db = write_cluster_store(tmp_path / "split.db", ("box-1", "box-2"), design="instance-based")
    path = tmp_path / "split.html"
    code, _, err = run_cli("report", "--store", str(db), "--html", str(path), "--resamples", "500")
    assert code == 0, err
    html = path.read_text()
    rows = _rows(html)
    assert "contender / baseline" not in html
    assert ["box-1" in rows[0], "box-2" in rows[1]] == [True, True]
    # v1 ran only on box-1, v2 only on box-2: each row has one version's numbers, no ratio.
    for row in rows:
        assert row.count("did not run here") == 1 and len(re.findall(r'<td class="num">', row)) == 3
        assert re.findall(r'<td class="num">(.*?)</td>', row)[2] == "+0.0%"   # the version's only instance
