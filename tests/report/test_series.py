"""The plotted series as CSV and as gnuplot columns: the same numbers, nothing injected."""

from __future__ import annotations

import csv
import io

import numpy as np

from rigorbench.analysis.dataset import load_dataset
from rigorbench.analysis.report import build_page
from rigorbench.analysis.settings import Settings
from rigorbench.model import BenchmarkCase
from rigorbench.report.series import SERIES_COLUMNS, render_series_csv, write_data_dir

from .conftest import JMH, run_cli


def _long_report():
    data = load_dataset([JMH / "long-v2-trial1.json.gz", JMH / "long-v2-trial2.json.gz"], "v2")
    return data, build_page([data], Settings(resamples=500))


def test_csv_holds_every_iteration_of_the_data_with_its_events():
    data, report = _long_report()
    rows = list(csv.DictReader(io.StringIO(render_series_csv(report))))
    assert tuple(rows[0]) == SERIES_COLUMNS
    for case in report.cases:
        table = data.series[(case.case, case.metric)]
        mine = [r for r in rows if r["benchmark"] == case.case.name and r["params"] == ";".join(f"{k}={v}" for k, v in case.case.params)]
        assert len(mine) == len(table)
        # The same values, fork by fork in the order taken.
        for fork in np.unique(table.fork):
            for trial in np.unique(table.trial):
                expected = table.value[(table.fork == fork) & (table.trial == trial)]
                got = [float(r["value"]) for r in mine if r["fork"] == str(fork) and r["trial"] == str(trial)]
                assert got == expected.tolist()
        gc = data.series[next(k for k in data.series if k[0] == case.case and k[1].name == "gc.count")]
        assert sum(r["gc"] == "1" for r in mine) == int((gc.value > 0).sum())


def test_data_dir_is_gnuplot_columns_with_comments(tmp_path):
    data, report = _long_report()
    written = write_data_dir(report, tmp_path / "dat")
    names = sorted(p.name for p in written)
    assert "index.txt" in names and sum(n.startswith("scaling-") for n in names) == 1
    for case in report.cases:
        dat = next(p for p in written if p.name.endswith(".dat") and not p.name.startswith("scaling-")
                   and case.case.display_name.replace("{", "_").replace("}", "") in p.name.replace("_size=", "_size="))
        numbers = np.loadtxt(dat, comments="#", ndmin=2)   # what gnuplot reads
        assert numbers.shape == (len(data.series[(case.case, case.metric)]), 5)
        text = dat.read_text()
        assert "# index 0: version v2" in text and "# v2 forks: 2" in text
    scaling = np.loadtxt(next(p for p in written if p.name.startswith("scaling-")), comments="#", ndmin=2)
    assert scaling.shape == (2, 4) and np.all(scaling[:, 2] <= scaling[:, 1]) and np.all(scaling[:, 1] <= scaling[:, 3])


def test_a_name_with_line_breaks_cannot_add_rows_or_escape_the_directory(tmp_path):
    data, _ = _long_report()
    hostile = BenchmarkCase.of("jmh", "../../evil\n1 2 3 4 5\n#")
    # Rename one case everywhere (with its events, so it keeps all its figures).
    first = next(iter(data.series))[0]
    series = {((hostile if case == first else case), metric): table for (case, metric), table in data.series.items()}
    renamed = type(data)(data.label, series, data.sources, data.environments, data.warnings)
    report = build_page([renamed], Settings(resamples=500))
    written = write_data_dir(report, tmp_path / "dat")
    assert all(p.parent == tmp_path / "dat" for p in written)
    dat = next(p for p in written if "evil" in p.name)
    numbers = np.loadtxt(dat, comments="#", ndmin=2)
    assert numbers.shape[0] == len(data.series[(first, next(iter(data.series))[1])])
    rows = list(csv.reader(io.StringIO(render_series_csv(report))))
    assert all(len(r) == len(SERIES_COLUMNS) for r in rows)


def test_cli_writes_csv_to_stdout_and_data_dir(tmp_path):
    code, out, err = run_cli("report", str(JMH / "v1-trial1.log"), str(JMH / "v2-trial1.log"), "--format", "csv",
                             "--data-dir", str(tmp_path / "d"), "--resamples", "500")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["version"] for r in rows} == {"v1-trial1", "v2-trial1"}
    # Console logs carry warmup: 2 warmup + 4 measurement iterations in each of 2 forks.
    assert sum(r["warmup"] == "1" for r in rows) * 2 == sum(r["warmup"] == "0" for r in rows)
    assert f"report: 6 files in {tmp_path / 'd'}" in err
