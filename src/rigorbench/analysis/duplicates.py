"""Result files that hold one run twice, found before their samples are counted (issue 35).

Several files given for a version are several trials of it: the bootstrap resamples them as
independent runs of the machine. A file given twice, a copy of it, or one run's JMH JSON and
its console log are one trial, not several; counted as more, they narrow every interval as if
the machine had been measured again, and a guess becomes a confident verdict.

Two files are the same run when their content is identical (after gunzip), or when they hold
the same measured samples: the same benchmark cases and primary metrics, the same number of
measurement iterations of each, and the same values at the same places (first, last, quartile
positions, smallest, largest and mean), equal to the precision the coarser format prints (JMH's
console log prints three decimals). Warmup iterations do not count (a JSON file has none), and
an invocation histogram counts as its iteration scores. A file with fewer than
:data:`MIN_VALUES` measured values is too small to tell a repeat from a coincidence: only its
content is compared.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from rigorbench.errors import UserError
from rigorbench.model import ResultFile, SampleTable

MIN_VALUES = 3
# Two values agree when they differ by at most what printing with three decimals changes
# (half a unit of the last digit), and by at most half a percent of their size: a JMH log's
# rounding, never two runs' noise.
ROUNDING = 5e-4 + 1e-9
RELATIVE = 5e-3

SeriesKey = tuple


@dataclass(frozen=True, eq=False)
class RunFingerprint:
    """What tells one file's run from another's: its content digest and, per primary series,
    the count and a few order statistics of its measured values."""

    path: str
    digest: str
    series: dict[SeriesKey, np.ndarray]
    values: int

    def holds_same_run(self, other: "RunFingerprint") -> bool:
        """Whether ``self``'s samples are all in ``other`` (its content, or every series of
        it, equal to the printed precision)."""
        if self.digest and self.digest == other.digest:
            return True
        if min(self.values, other.values) < MIN_VALUES or not self.series.keys() <= other.series.keys():
            return False
        return all(_agree(summary, other.series[key]) for key, summary in self.series.items())


def _agree(a: np.ndarray, b: np.ndarray) -> bool:
    if a[0] != b[0]:                     # the count of values
        return False
    difference = np.abs(a - b)
    return bool(np.all((difference == 0) | ((difference <= ROUNDING) & (difference <= RELATIVE * np.maximum(np.abs(a), np.abs(b))))))


def _summary(table: SampleTable) -> np.ndarray | None:
    """Count, values at five positions, smallest, largest and mean of the measured iterations."""
    table = table.measurement()
    if table.has_histogram:
        table = table.iteration_means()
    if not len(table):
        return None
    order = np.lexsort((table.iteration, table.fork, table.trial, table.instance))
    values = table.value[order]
    n = len(values)
    at = values[[0, n // 4, n // 2, (3 * n) // 4, n - 1]]
    return np.concatenate(([n], at, [values.min(), values.max(), values.mean()]))


def fingerprint(result: ResultFile) -> RunFingerprint:
    """The fingerprint of one file's run (its primary metrics' measured values)."""
    series, values = {}, 0
    for s in result.series:
        if not s.metric.primary:
            continue
        summary = _summary(s.samples)
        if summary is not None:
            series[(s.version, s.case, s.metric.name, s.metric.unit)] = summary
            values += int(summary[0])
    return RunFingerprint(result.path, result.digest, series, values)


def once_each(files: Sequence[ResultFile], note: Callable[[str], None] | None = None) -> tuple[list[ResultFile], list[RunFingerprint]]:
    """The files with every run counted once, and their fingerprints; ``note`` is told, in one
    line per repeated file, which were left out."""
    kept: list[tuple[ResultFile, RunFingerprint]] = []
    repeats: dict[str, list[str]] = {}          # kept path -> the paths counted as it, in order
    for result in files:
        mark = fingerprint(result)
        same = next((i for i, (_, seen) in enumerate(kept) if mark.holds_same_run(seen)), None)
        if same is None:
            wider = next((i for i, (_, seen) in enumerate(kept) if seen.holds_same_run(mark)), None)
            if wider is None:
                kept.append((result, mark))
                continue
            # An earlier file holds a part of this one's run (a log of some of its benchmarks):
            # this one, the fuller, takes its place.
            earlier = kept[wider][0].path
            kept[wider] = (result, mark)
            repeats[result.path] = [earlier, *repeats.pop(earlier, [])]
            continue
        repeats.setdefault(kept[same][0].path, []).append(result.path)
    if note is not None:
        for path, others in repeats.items():
            note(_repeat_note(path, others, files))
    return [result for result, _ in kept], [mark for _, mark in kept]


def _repeat_note(path: str, others: list[str], files: Sequence[ResultFile]) -> str:
    same_name = [other for other in others if other == path]
    if len(same_name) == len(others):
        return f"{path} is given {len(others) + 1} times; counted once"
    digest = next(f.digest for f in files if f.path == path)
    copies = [o for o in dict.fromkeys(others) if o != path]
    content = all(f.digest == digest for f in files if f.path in copies)
    plural = len(copies) > 1
    how = ("have" if plural else "has") + " the same content as" if content else ("hold" if plural else "holds") + " the same samples as"
    listed = ", ".join(copies[:3]) + (f" and {len(copies) - 3} more" if len(copies) > 3 else "")
    return f"{listed} {how} {path}; counted once"


def refuse_shared(baseline: Sequence[RunFingerprint], contender: Sequence[RunFingerprint]) -> None:
    """UserError when a run is on both sides: comparing a run with itself decides nothing."""
    for mark in contender:
        for seen in baseline:
            if mark.holds_same_run(seen) or seen.holds_same_run(mark):
                if mark.path == seen.path:
                    raise UserError(f"{mark.path} is given as both baseline and contender; give each version its own files")
                how = "has the same content as" if mark.digest == seen.digest else "holds the same samples as"
                raise UserError(f"{mark.path} (contender) {how} {seen.path} (baseline); give each version its own files")
