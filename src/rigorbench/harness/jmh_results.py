"""Turn what one JMH invocation left behind into a :class:`TrialOutcome`.

Sources, in order of trust:

* ``result.json`` (``-rf json``): exact values of every measurement iteration, written by
  JMH only at the very end of a run. When JMH exited 0 and this file is complete, all
  measurement rows come from it.
* ``console.log``: what JMH printed, kept line by line while it ran. It is the only source
  of warmup iterations (the JSON has none), and of anything at all when the run was killed
  or failed. Its values are rounded to the printed precision (3 decimals).

A completed trial therefore gets its measurement rows from the JSON plus its *primary
metric's* warmup rows (``warmup=True``) from the log, which are what steady-state analysis
needs; they are added only when the log's measurement iterations line up with the JSON's
(same forks and iterations), and never to SampleTime series (their JSON rows are
histograms, the log's are iteration means). A killed or failed trial keeps every
iteration the log shows as finished.
"""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path

import numpy as np

from rigorbench.errors import InputError
from rigorbench.formats import READERS, read_result_file
from rigorbench.harness.base import DONE, FAILED, TIMEOUT, TrialOutcome
from rigorbench.harness.jmh_console import ConsoleTracker
from rigorbench.harness.process import ProcessResult, tail
from rigorbench.model import ResultFile, SampleTable, Series

TAIL_LINES = 40
ENVIRONMENT_KEYS = ("jmh_version", "vm_name", "vm_version", "jdk_version", "jvm", "jvm_args", "blackhole_mode")
_ERROR_LINE = re.compile(r"(ERROR\b|Error\b|Exception in thread|No matching benchmarks|[\w.$]+(Exception|Error)\b)")


def trial_outcome(
    run: ProcessResult, tracker: ConsoleTracker, result_path: Path, log_path: Path, timeout_s: float | None
) -> TrialOutcome:
    """The outcome of one finished, failed or killed JMH run."""
    console, console_error = read_console(log_path)
    results, results_error = read_json(result_path)
    if run.timed_out:
        status, message = TIMEOUT, f"timed out after {timeout_s:g} s {tracker.where()}"
    elif run.returncode != 0:
        status, message = FAILED, exit_message(run)
    elif results is None:
        status, message = FAILED, f"JMH exited 0 but left no complete result file: {results_error}"
    else:
        status, message = DONE, ""
    if status == DONE:
        series = with_warmup(results.series, console)
    else:
        series = console.series if console is not None else ()
        if console_error and tracker.iterations:
            message += f"; no iterations recovered from the console log ({console_error})"
    return TrialOutcome(
        status=status, series=series, harness_seconds=run.seconds,
        environment=trial_environment(results, console), failures=tuple(tracker.failures),
        output_tail=tail(run.lines, TAIL_LINES), message=message,
    )


def read_json(path: Path) -> tuple[ResultFile | None, str]:
    """The JSON result file, or None and why; a valid file without results is empty, not None."""
    try:
        return read_result_file(path, format="jmh-json"), ""
    except InputError as error:
        if _valid_json_list(path):  # e.g. "[]" when every benchmark failed
            return ResultFile(path=str(path), format="jmh-json", series=()), ""
        return None, str(error)


def _valid_json_list(path: Path) -> bool:
    try:
        return isinstance(json.loads(path.read_text(encoding="utf-8")), list)
    except (OSError, ValueError):
        return False


def read_console(path: Path) -> tuple[ResultFile | None, str]:
    """Every finished iteration in the console log, or None and why.

    When the reader stops at a line it cannot read (e.g. the ``<failure: VM prematurely
    exited ...>`` JMH prints when a trial is killed mid-iteration), the lines before that
    one are read again on their own, so nothing finished before it is lost.
    """
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        return None, f"{path}: {error.strerror or error}"
    reader = READERS["jmh-text"]
    try:
        return reader.parse(text, str(path)), ""
    except InputError as error:
        if not error.line or error.line <= 1:
            return None, str(error)
        head = "\n".join(text.split("\n")[: error.line - 1]) + "\n"  # lines as the reader numbers them
        first_error = str(error)
    try:
        return reader.parse(head, str(path)), ""
    except InputError:
        return None, first_error


def exit_message(run: ProcessResult) -> str:
    """``"JMH exited with code 1: <the first error line>"``, naming the signal of a killed JMH."""
    if run.returncode < 0:
        return f"JMH was killed by {_signal_name(-run.returncode)}"
    code = f"JMH exited with code {run.returncode}"
    if 128 < run.returncode < 128 + 65:  # the JVM exits with 128+N on signal N (143: SIGTERM)
        code += f" ({_signal_name(run.returncode - 128)})"
    return f"{code}: {_reason(run.lines)}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _reason(lines: tuple[str, ...]) -> str:
    """The first error line (with the next line if it ends in ':'), else the last line."""
    texts = [line.strip() for line in lines if line.strip()]
    if not texts:
        return "no output"
    index = next((i for i, text in enumerate(texts) if _ERROR_LINE.match(text)), len(texts) - 1)
    reason = texts[index]
    if reason.endswith(":") and index + 1 < len(texts):
        reason += " " + texts[index + 1]
    return reason[:300]


def with_warmup(series: tuple[Series, ...], console: ResultFile | None) -> tuple[Series, ...]:
    """The JSON's series, each with the console log's warmup rows of the same case and metric."""
    if console is None:
        return series
    logged = {(s.case, s.metric): s.samples for s in console.series}
    return tuple(_merge(s, logged.get((s.case, s.metric))) for s in series)


def _merge(series: Series, logged: SampleTable | None) -> Series:
    if logged is None or series.samples.has_histogram:
        return series
    warmup = logged.select(logged.warmup)
    if not len(warmup) or _cells(logged.measurement()) != _cells(series.samples.measurement()):
        return series
    table = SampleTable.concat([warmup, series.samples])
    order = np.lexsort((table.iteration, ~table.warmup, table.fork))
    return Series(series.case, series.metric, table.select(order), series.version)


def _cells(samples: SampleTable) -> set[tuple[int, int]]:
    return set(zip(samples.fork.tolist(), samples.iteration.tolist()))


def trial_environment(results: ResultFile | None, console: ResultFile | None) -> dict[str, str]:
    """JVM and JMH facts of the trial: the JSON's where it has them, else the console log's."""
    environment: dict[str, str] = {}
    for source in (console, results):
        if source is not None:
            environment.update({k: v for k, v in source.environment.items() if k in ENVIRONMENT_KEYS})
    return environment
