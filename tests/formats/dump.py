"""A stable, canonical text form of a :class:`ResultFile`, for golden tests and debugging.

One line per series (case, metric, version, row and level counts, the count-weighted sum
of values to 6 significant digits), then the environment sorted by key, then the failures and
the warnings.
The path is left out, so that the dump does not depend on where the file lies.
"""

from __future__ import annotations

import math

import numpy as np

from rigorbench.model import ResultFile, Series


def dump_result_file(result: ResultFile) -> str:
    lines = [f"format: {result.format}", f"series: {len(result.series)}"]
    lines.extend(f"  {dump_series(s)}" for s in result.series)
    lines.append(f"environment: {len(result.environment)}")
    lines.extend(f"  {key}: {value}" for key, value in sorted(result.environment.items()))
    lines.append(f"failures: {len(result.failures)}")
    lines.extend(f"  {failure}" for failure in result.failures)
    lines.append(f"warnings: {len(result.warnings)}")
    lines.extend(f"  {warning}" for warning in result.warnings)
    return "\n".join(lines) + "\n"


def dump_series(series: Series) -> str:
    s = series.samples
    metric = series.metric
    direction = "higher" if metric.higher_is_better else "lower"
    kind = "primary" if metric.primary else "secondary"
    version = f" @{series.version}" if series.version is not None else ""
    forks = len({(i, t, f) for i, t, f in zip(s.instance.tolist(), s.trial.tolist(), s.fork.tolist())})
    total = math.fsum((s.value * s.count).tolist())
    return (
        f"{series.case.harness}:{series.case.display_name}{version} | "
        f"{metric.name} [{metric.unit}, {direction} is better, {kind}] | "
        f"rows={len(s)} instances={_distinct(s.instance)} trials={_distinct(s.trial)} forks={forks} "
        f"warmup={int(s.warmup.sum())} count={_g(math.fsum(s.count.tolist()))} sum={_g(total)}"
    )


def _distinct(column: np.ndarray) -> int:
    return len(np.unique(column))


def _g(value: float) -> str:
    return f"{value:.6g}"
