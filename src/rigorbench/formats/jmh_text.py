"""JMH's human-readable console log (what ``java -jar benchmarks.jar`` prints).

Each benchmark run starts with ``# Key: value`` header lines (``# JMH version:``,
``# Benchmark mode:``, ``# Benchmark:``, ``# Parameters: (k = v, ...)``), then per fork
``# Fork: i of n``, ``# Warmup Iteration   k: <score> <unit>`` and ``Iteration   k: <score>
<unit>`` lines, with profiler results indented under their iteration. Unlike the JSON file,
the log has the warmup iterations; they are kept, flagged ``warmup``.

Scores are printed with 3 decimals in the JVM's locale (``334864679,695 ops/s`` under
de_DE), ``NaN`` for failed measurements, and ``≈ 0`` / ``≈ 10⁻⁴`` for magnitudes below
the precision (JMH's ScoreFormatter): ``≈ 0`` is read as 0, ``≈ 10⁻ⁿ`` is skipped with a
warning (only an order of magnitude). SampleTime iterations print their mean (``12.3
±(99.9%) 0.1 ns/op``, or ``n = 1234, mean = 12 ns/op, p{...} = ...`` before JMH 1.10);
their percentile lines are summaries of that mean's sample and are not kept.

A number beyond float range (``1e999``), a negative time or throughput, and a benchmark
case (name, mode, parameters) whose run appears twice in one log (two logs pasted
together) are input errors naming the line: JMH prints none of them.

A failed benchmark (``<failure>`` and its stack trace) and a log cut off by a killed run
keep everything finished before, with a warning. Result blocks and the final summary table
repeat what the iterations said and are ignored.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from rigorbench.formats import jmh
from rigorbench.formats.collect import EnvironmentCollector, SeriesCollector, input_error, impossible, out_of_range, result_file
from rigorbench.model import BenchmarkCase, ResultFile

_NUM = r"[-+]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][-+]?\d+)?|NaN|[-+]?Infinity|≈ ?(?:0|10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)"
_ITERATION = re.compile(r"(# Warmup )?Iteration\s+(\d+)\s*:(.*)")
_SCORE = re.compile(rf"({_NUM})\s+(\S+)")
_SAMPLE_SCORE = re.compile(rf"({_NUM})\s+[±?]\([^)]*\)\s+\S+(?:\s+\S+)?\s+(\S+)")  # "12.3 ±(99.9%) 0.1 ns/op"
_OLD_SAMPLE_SCORE = re.compile(rf"n = \d+, mean = ({_NUM}) (\S+), p\{{.*")
_SECONDARY = re.compile(rf"\s+(\S.*?):\s+({_NUM})\s+(\S+)\s*")
_HEADER = re.compile(r"# ([A-Za-z][A-Za-z ]*[A-Za-z]):\s*(.*)")
_PARAM = re.compile(r"([^\s=,][^=,]*?) = (.*?)(?=, [^\s=,][^=,]*? = |$)")
_SNIFF = re.compile(r"^(# JMH version: |# Benchmark: |# Fork: |# Warmup Iteration\s+\d+:|Iteration\s+\d+: )", re.M)

APPROXIMATE = object()  # "≈ 10⁻⁴": below the printed precision, only a magnitude
OUT_OF_RANGE = object()  # "1e999": a number no float holds; JMH never prints one


class JmhTextReader:
    name = "jmh-text"
    description = "JMH console log"

    def sniff(self, text: str) -> bool:
        return bool(_SNIFF.search(text))

    def parse(self, text: str, path: str) -> ResultFile:
        parser = _LogParser(path)
        lines = text.split("\n")
        cut = not text.endswith("\n")  # a killed run may stop mid-line
        last = len(lines)
        for number, line in enumerate(lines, 1):
            parser.line(line.rstrip("\r"), number, partial=cut and number == last)
        return parser.finish()


def parse_score(text: str):
    """A console score as float; ``APPROXIMATE`` for ``≈ 10⁻ⁿ``; None if not a score."""
    if text.startswith("≈"):
        rest = text[1:].strip()
        return 0.0 if rest == "0" else APPROXIMATE
    if text in ("NaN", "Infinity", "+Infinity", "-Infinity"):
        return float(text.replace("Infinity", "inf"))
    try:
        value = float(text.replace(",", "."))
    except ValueError:
        return None
    return value if math.isfinite(value) else OUT_OF_RANGE


def iteration_score(payload: str):
    """``(score, unit)`` of an iteration line's payload, or None."""
    for pattern in (_SCORE, _SAMPLE_SCORE, _OLD_SAMPLE_SCORE):
        match = pattern.fullmatch(payload)
        if match:
            score = parse_score(match.group(1))
            return None if score is None else (score, match.group(2))
    return None


def parse_params(text: str) -> dict[str, str]:
    """``"(size = 100, mode = a,b)"`` -> ``{"size": "100", "mode": "a,b"}``."""
    inner = text.strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    return {m.group(1).strip(): m.group(2) for m in _PARAM.finditer(inner)}


@dataclass
class _Block:
    """One benchmark's run: from its ``# Benchmark:`` line to the next."""

    name: str
    mode: str | None
    params: dict[str, str] = field(default_factory=dict)
    case: BenchmarkCase | None = None
    fork: int | None = None


class _LogParser:
    def __init__(self, path: str) -> None:
        self.path = path
        self.collector = SeriesCollector()
        self.environment = EnvironmentCollector()
        self.warnings: list[str] = []
        self.failures: list[str] = []  # "case" or "case: what failed", in the harness's form
        self.block: _Block | None = None
        self.mode: str | None = None  # from "# Benchmark mode:", read before "# Benchmark:"
        self.last: tuple[int, int, bool] | None = None  # fork, iteration, warmup of the last iteration line
        self.failure: str | None = None  # case name while inside a <failure> stack trace
        self.forks_seen: dict[BenchmarkCase, int] = {}
        self.runs_seen: dict[tuple[BenchmarkCase, str | None], int] = {}  # -> line of its first fork
        self.number = 0  # the line being read
        self.approximate: dict[str, int] = {}
        self.complete = False

    # -- dispatch ---------------------------------------------------------------------------

    def line(self, line: str, number: int, *, partial: bool = False) -> None:
        self.number = number
        if self.failure is not None:
            if not (line.startswith("# ") or _ITERATION.match(line)):
                if line.strip() and self.failure:
                    self.failures.append(f"{self.failure}: {line.strip()}")
                    self.failure = ""
                return
            self._end_failure()
        match = _ITERATION.match(line)
        if match:
            self.iteration(match, number, partial)
        elif line.startswith("# "):
            self.header(line)
        elif line[:1] in (" ", "\t") and self.last is not None:
            self.secondary(line, partial)
        else:
            self.last = None
            if "<failure>" in line:
                self._start_failure()
            elif line.startswith("<forked VM failed") or line.startswith("<binary link had failed"):
                self.failures.append(f"{self._block_name()}: {line.strip('<> ')}")

    def finish(self) -> ResultFile:
        self._end_failure()
        for name, n in self.approximate.items():
            self.warnings.append(
                f"{n} approximate value{'s' if n != 1 else ''} (≈ 10⁻ⁿ) skipped in {name}; "
                "the JSON result file (-rf json) has exact values"
            )
        if self.block is not None and not self.complete:
            self.warnings.append(
                f"log ends during {self.block.name} without '# Run complete' (run killed?); "
                "kept the iterations finished before the cut"
            )
        return result_file(self.path, JmhTextReader.name, self.collector, self.environment, self.warnings, self.failures)

    # -- records ----------------------------------------------------------------------------

    def iteration(self, match: re.Match, number: int, partial: bool) -> None:
        if len(match.group(2)) > 9:
            raise input_error(self.path, number, f"iteration number out of range: {match.group(2)[:12]}...")
        warmup, index, payload = bool(match.group(1)), int(match.group(2)), match.group(3).strip()
        payload = payload.removeprefix("(*interrupt*)").lstrip()  # timed out, but measured
        label = "warmup iteration" if warmup else "iteration"
        if payload.startswith("<failure"):  # "<failure>" or "<failure: VM prematurely exited ...>"
            self.last = None
            self._start_failure()
            reason = payload[len("<failure"):].strip(":> ")
            if reason:
                self.failures.append(f"{self.failure}: {reason}")
                self.failure = ""
            return
        if partial:  # the last line of a killed run, without its newline: maybe incomplete
            self.last = None
            return
        block = self.block
        if block is None:
            raise input_error(self.path, number, f"{label} {index} before any '# Benchmark:' line")
        scored = iteration_score(payload)
        if scored is None:
            raise input_error(self.path, number, f"cannot read the score of {label} {index}: {payload!r}")
        if index < 1:
            raise input_error(self.path, number, f"{label} number must start at 1, got {index}")
        score, unit = scored
        fork = self._fork(block)
        metric = jmh.primary_metric(block.mode, unit)
        self.last = (fork, index - 1, warmup)
        self._add(block, metric, score, fork, index - 1, warmup, payload)

    def secondary(self, line: str, partial: bool) -> None:
        match = _SECONDARY.fullmatch(line)
        block = self.block
        if match is None or block is None or partial:
            self.last = None
            return
        label, text, unit = match.groups()
        if label.startswith("?"):  # "·" written by a JVM whose charset lacks it
            label = jmh.SECONDARY_PREFIX + label[1:]
        if jmh.is_sample_percentile(label, block.mode):
            return
        score = parse_score(text)
        if score is None:
            return
        fork, iteration, warmup = self.last
        self._add(block, jmh.secondary_metric(label, unit), score, fork, iteration, warmup, text)

    def _add(self, block: _Block, metric, score, fork: int, iteration: int, warmup: bool, text: str) -> None:
        if score is OUT_OF_RANGE:
            raise input_error(self.path, self.number, f"{block.case.display_name}: {out_of_range(text.split()[0])}")
        problem = None if score is APPROXIMATE else impossible(metric, score)
        if problem:
            raise input_error(self.path, self.number, f"{block.case.display_name}: {problem}")
        if score is APPROXIMATE:
            key = f"{block.case.display_name} {metric.name}"
            self.approximate[key] = self.approximate.get(key, 0) + 1
            return
        self.collector.add(block.case, metric, score, fork=fork, iteration=iteration, warmup=warmup)

    # -- headers ----------------------------------------------------------------------------

    def header(self, line: str) -> None:
        self.last = None
        if line.startswith("# Run complete"):
            self.complete, self.block = True, None
            return
        match = _HEADER.fullmatch(line)
        if match is None:
            return
        key, value = match.group(1), match.group(2).strip()
        handler = _HEADER_HANDLERS.get(key)
        if handler is not None:
            handler(self, value)

    def _benchmark(self, value: str) -> None:
        self.block = _Block(name=value.split()[0] if value else "?", mode=self.mode)
        self.complete = False

    def _parameters(self, value: str) -> None:
        if self.block is not None and self.block.case is None:
            self.block.params = parse_params(value)

    def _fork_header(self, value: str) -> None:
        block = self.block
        if block is None:
            return
        block.fork = None
        self._fork(block)
        total = value.split(" of ")
        self.environment.set("forks", total[1].strip() if len(total) == 2 else "0")

    def _benchmark_mode(self, value: str) -> None:
        self.mode = jmh.mode_from_label(value)
        self.environment.set("mode", self.mode or value)

    # -- state ------------------------------------------------------------------------------

    def _fork(self, block: _Block) -> int:
        """This block's current fork code; the first iteration line opens a fork if needed."""
        if block.case is None:
            block.case = BenchmarkCase.of("jmh", block.name, block.params)
            self._once(block)
        if block.fork is None:
            block.fork = self.forks_seen.get(block.case, 0)
            self.forks_seen[block.case] = block.fork + 1
        return block.fork

    def _once(self, block: _Block) -> None:
        """A case (name, parameters, mode) run twice in one log would count its forks twice."""
        key = (block.case, block.mode)
        first = self.runs_seen.get(key)
        if first is not None:
            mode = f" (mode {block.mode})" if block.mode else ""
            raise input_error(
                self.path, self.number,
                f"{block.case.display_name}{mode}: run again (first at line {first}); "
                "one log holds each benchmark case once",
            )
        self.runs_seen[key] = self.number

    def _block_name(self) -> str:
        if self.block is None:
            return "?"
        return self.block.case.display_name if self.block.case else self.block.name

    def _start_failure(self) -> None:
        self.failure = self._block_name()

    def _end_failure(self) -> None:
        if self.failure:  # the stack trace never came
            self.failures.append(self.failure)
        self.failure = None


def _set(key: str, transform=lambda v: v):
    def handle(parser: _LogParser, value: str) -> None:
        parser.environment.set(key, transform(value))

    return handle


def _vm_version(parser: _LogParser, value: str) -> None:
    for key, text in jmh.vm_version_fields(value).items():
        parser.environment.set(key, text)


_HEADER_HANDLERS = {
    "JMH version": _set("jmh_version"),
    "VM version": _vm_version,
    "VM invoker": _set("jvm"),
    "VM options": _set("jvm_args"),
    "Blackhole mode": _set("blackhole_mode", lambda v: v.split(" (")[0]),
    "Warmup": _set("warmup"),
    "Measurement": _set("measurement"),
    "Timeout": _set("timeout"),
    "Threads": _set("threads", lambda v: v.split()[0] if v else v),
    "Benchmark mode": _LogParser._benchmark_mode,
    "Benchmark": _LogParser._benchmark,
    "Parameters": _LogParser._parameters,
    "Fork": _LogParser._fork_header,
}
