"""Per-commit histories in Apache Otava's CSV layout (issue 17).

Otava (formerly Hunter) keeps each test's history as a CSV file: a time column, attribute
columns (the commit, a branch, a build number, ...) and one column per metric, one row per
run. :func:`read_history_csv` reads such a file into one :class:`HistorySeries` per metric
column, in time order. A metric column ``M`` may come with ``M.ci_low`` and ``M.ci_high``
columns: each run's own confidence interval of ``M``.

A CSV column has no unit and no direction: which way is better comes from the options
(``--higher-is-better``/``--lower-is-better``), else from the column's name where it says
(:func:`rigorbench.units.higher_is_better_from_name`: ``encode_ops_s`` and ``throughput`` are
better higher, ``parse_ns`` and ``latency_ms`` lower), else lower is better is assumed, and
each series says which of the three it was (``direction_from``).
"""

from __future__ import annotations

import csv
import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from rigorbench.errors import InputError, UserError
from rigorbench.units import higher_is_better_from_name

TIME_COLUMN = "time"
COMMIT_COLUMN = "commit"
BRANCH_COLUMN = "branch"
# How a series' direction was decided: given by an option, read from the column's name, or
# assumed (lower is better); a series of the store knows its metric's ("").
DIRECTION_GIVEN, DIRECTION_FROM_NAME, DIRECTION_ASSUMED = "option", "name", "assumed"
# A CSV history larger than this is not a history: refuse it rather than read it all.
MAX_CSV_BYTES = 256 * 2**20


@dataclass(frozen=True)
class HistorySeries:
    """One metric over the runs of a history, oldest first."""

    benchmark: str
    metric: str
    higher_is_better: bool
    times: tuple[str, ...]
    commits: tuple[str, ...]          # the commit column's values, else the row's time
    values: tuple[float, ...]
    ci_low: tuple[float, ...] | None = None   # each run's own interval, from METRIC.ci_low
    ci_high: tuple[float, ...] | None = None  # and METRIC.ci_high, when the file has them
    branches: tuple[str, ...] | None = None   # each run's branch, when the file has a branch column
    confidences: tuple[float, ...] | None = None  # each interval's level (else --ci-confidence)
    # A series read from the results store names its case, unit and series key in full.
    params: tuple[tuple[str, str], ...] = ()
    unit: str = ""
    branch: str = ""
    machine: str = ""
    direction_from: str = ""


def direction_of(metric: str, higher: re.Pattern | None, lower: re.Pattern | None) -> tuple[bool, str]:
    """Whether more of column ``metric`` is better, and how that was decided (see above)."""
    up, down = bool(higher and higher.search(metric)), bool(lower and lower.search(metric))
    if up and down:
        raise UserError(f"column {metric!r} matches both --higher-is-better and --lower-is-better; make one of them narrower")
    if up or down:
        return up, DIRECTION_GIVEN
    named = higher_is_better_from_name(metric)
    return (False, DIRECTION_ASSUMED) if named is None else (named, DIRECTION_FROM_NAME)


def _time(text: str, path: str, line: int) -> datetime:
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InputError(path, line, f"time {text!r} is not an ISO 8601 date or time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def read_history_csv(path: str | Path, *, time_column: str = TIME_COLUMN, commit_column: str = COMMIT_COLUMN,
                     metrics: list[str] | None = None, bench: re.Pattern | None = None,
                     higher_is_better: re.Pattern | None = None, lower_is_better: re.Pattern | None = None,
                     branch: str | None = None, since: datetime | None = None) -> list[HistorySeries]:
    """Every metric column of an Otava-style CSV file as a series (see the module docstring).

    Metric columns are ``metrics`` when given, else every column besides the time, commit and
    branch columns whose every non-empty cell is a finite number. An empty cell is a run
    without that metric. ``bench`` keeps the metric columns it matches (searched, like
    ``--bench``); ``higher_is_better`` and ``lower_is_better`` set columns' direction (else
    :func:`direction_of` reads it from the name).
    """
    name = str(path)
    source = Path(path)
    if not source.is_file():
        raise UserError(f"{name}: not a regular file")
    if source.stat().st_size > MAX_CSV_BYTES:
        raise UserError(f"{name}: larger than {MAX_CSV_BYTES // 2**20} MiB; not a history file")
    with source.open(newline="", encoding="utf-8", errors="strict") as handle:
        try:
            rows = list(csv.reader(handle))
        except (csv.Error, UnicodeDecodeError) as error:
            raise InputError(name, None, f"not a readable CSV file: {error}") from None
    if not rows or not any(cell.strip() for cell in rows[0]):
        raise InputError(name, 1, "empty: expected a header row")
    header = [cell.strip() for cell in rows[0]]
    duplicated = sorted({h for h in header if header.count(h) > 1})
    if duplicated:
        raise InputError(name, 1, f"column {duplicated[0]!r} appears twice in the header")
    if time_column not in header:
        raise InputError(name, 1, f"no {time_column!r} column (--time-column names the time column); columns: {', '.join(header)}")
    index = {h: i for i, h in enumerate(header)}
    records = []
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise InputError(name, line, f"{len(row)} cells where the header has {len(header)}")
        records.append((line, row, _time(row[index[time_column]], name, line)))
    if branch is not None:
        if BRANCH_COLUMN not in index:
            raise UserError(f"{name}: --branch needs a {BRANCH_COLUMN!r} column, and the file has none")
        records = [r for r in records if r[1][index[BRANCH_COLUMN]].strip() == branch]
    if since is not None:
        records = [r for r in records if r[2] >= since]
    records.sort(key=lambda r: r[2])  # stable: equal times keep the file's order
    reserved = {time_column, commit_column, BRANCH_COLUMN}
    bounds = {h for h in header if h.endswith((".ci_low", ".ci_high"))}
    if metrics is None:
        chosen = [h for h in header if h not in reserved and h not in bounds
                  and all(_number(row[index[h]]) is not None for _, row, _ in records if row[index[h]].strip())]
    else:
        missing = [m for m in metrics if m not in index]
        if missing:
            raise InputError(name, 1, f"no column {missing[0]!r}; columns: {', '.join(header)}")
        chosen = list(metrics)
    if bench is not None:
        chosen = [h for h in chosen if bench.search(h)]
    out = []
    for metric in chosen:
        low_column, high_column = f"{metric}.ci_low", f"{metric}.ci_high"
        with_ci = low_column in index and high_column in index
        if (low_column in index) != (high_column in index):
            raise InputError(name, 1, f"{low_column!r} and {high_column!r} come together; the file has one of them")
        times, commits, values, lows, highs, branches = [], [], [], [], [], []
        for line, row, moment in records:
            cell = row[index[metric]].strip()
            if not cell:
                continue
            value = _number(cell)
            if value is None:
                raise InputError(name, line, f"column {metric!r}: {cell[:60]!r} is not a finite number")
            if with_ci:
                low, high = (_number(row[index[c]].strip()) for c in (low_column, high_column))
                if low is None or high is None or not low <= value <= high:
                    raise InputError(name, line, f"{metric!r}: the interval [{row[index[low_column]].strip()[:30]}, "
                                                 f"{row[index[high_column]].strip()[:30]}] must be numbers around {cell[:30]}")
                lows.append(low)
                highs.append(high)
            times.append(moment.isoformat())
            if BRANCH_COLUMN in index:
                branches.append(row[index[BRANCH_COLUMN]].strip())
            commits.append(row[index[commit_column]].strip() if commit_column in index else moment.isoformat())
            values.append(value)
        hib, decided = direction_of(metric, higher_is_better, lower_is_better)
        out.append(HistorySeries(source.stem, metric, hib, tuple(times), tuple(commits), tuple(values),
                                 tuple(lows) if with_ci else None, tuple(highs) if with_ci else None,
                                 tuple(branches) if BRANCH_COLUMN in index else None, direction_from=decided))
    return out
