"""Follow JMH's console output line by line: progress events and failed benchmarks.

This is a light line matcher for a running trial, not a result parser (the values come from
``rigorbench.formats``). It knows where JMH is - ``# Benchmark: X``, ``# Parameters: (k =
v)``, ``# Fork: 2 of 3``, ``# Warmup Iteration   N: ...``, ``Iteration   N: ...`` - and which
benchmarks failed inside JMH, which then goes on with the next benchmark and exits 0:

* ``<failure>`` (after an iteration's prefix or alone), a blank line, then the exception's
  stack trace: the benchmark or its setup threw; ``<failure: reason>`` in place of an
  iteration's score: the forked JVM exited during the iteration (``System.exit``, a crash);
* ``<forked VM failed with exit code N>`` followed by ``<stdout ...>`` and ``<stderr ...>``
  blocks with the fork's last lines: the benchmark JVM died (bad JVM option, crash).

Iteration lines are complete only when the iteration has finished (JMH prints the prefix
when it starts and the score when it ends), so an iteration event means "finished".
"""

from __future__ import annotations

import re

from rigorbench.formats.jmh_text import parse_params
from rigorbench.harness.base import Progress
from rigorbench.model import BenchmarkCase

_BENCHMARK = re.compile(r"# Benchmark: (\S+)")
_PARAMETERS = re.compile(r"# Parameters: (.*)")
_FORK = re.compile(r"# (Warmup )?Fork: (\d+) of (\d+)")
_ITERATION = re.compile(r"(# Warmup )?Iteration\s+(\d+)\s*:")
_FORKED_VM_FAILED = re.compile(r"<forked VM failed with exit code (-?\d+)>")
_STDERR_START = re.compile(r"<stderr\b[^>]*>")
_STDERR_END = "</stderr>"
_FAILURE = re.compile(r"<failure(?:>|: (.*)>)")  # "<failure>", or "<failure: VM prematurely exited ...>"


class ConsoleTracker:
    """Feed it every console line; it answers with a :class:`Progress` and collects failures.

    In each event ``benchmark``, ``fork`` and ``forks`` describe where JMH is now (the
    benchmark as ``name{param=value}`` once its parameters are known); ``iteration`` and
    ``warmup`` are set only on the line of a finished iteration, so a progress bar can count
    iteration events.
    """

    def __init__(self) -> None:
        self.benchmark: str | None = None
        self.fork: int | None = None
        self.forks: int | None = None
        self.failures: list[str] = []
        self.iterations = 0            # finished iterations seen (warmup and measurement)
        self._name: str | None = None
        self._params: dict[str, str] = {}
        self._settled = False          # parameters read (they follow "# Benchmark:")
        self._pending: int | None = None  # index in failures still waiting for its detail line
        self._pending_vm = False       # ... from a failed fork's <stderr> block (else the exception line)
        self._in_stderr = False

    def feed(self, line: str) -> Progress:
        """Digest one line (without its line end); the event for it."""
        iteration, warmup = self._match(line)
        return Progress(
            benchmark=self.benchmark, fork=self.fork, forks=self.forks,
            iteration=iteration, warmup=warmup, line=line,
        )

    def where(self) -> str:
        """``"dev.x.Bench.method{size=10}, fork 2"``: for a timeout message."""
        if self._name is None:
            return "before the first benchmark started"
        text = f"in {self._display()}"
        return text + (f", fork {self.fork}" if self.fork is not None else "")

    # -- matching ---------------------------------------------------------------------------

    def _match(self, line: str) -> tuple[int | None, bool]:
        if self._name is not None and not self._settled and not _PARAMETERS.match(line):
            self._settled = True
            self.benchmark = self._display()
        if self._pending is not None:
            self._failure_detail(line.strip())
        iteration = _ITERATION.match(line)
        if (failure := _FAILURE.search(line)) is not None:
            detail = failure.group(1)
            index = self._add_failure(detail)
            self._pending, self._pending_vm = (None if detail else index), False
            return None, False  # a failed iteration measured nothing
        if (failed := _FORKED_VM_FAILED.match(line.strip())) is not None:
            detail = f"forked VM failed with exit code {failed.group(1)}"
            self._pending, self._pending_vm, self._in_stderr = self._add_failure(detail), True, False
        elif line.startswith("# ") and iteration is None:
            self._header(line)
        if iteration is None:
            return None, False
        self.iterations += 1
        return int(iteration.group(2)), iteration.group(1) is not None

    def _header(self, line: str) -> None:
        self._pending = None
        if (match := _BENCHMARK.match(line)) is not None:
            self._name, self._params, self._settled = match.group(1), {}, False
            self.benchmark = self.fork = self.forks = None
        elif (match := _PARAMETERS.match(line)) is not None and not self._settled:
            self._params = parse_params(match.group(1))
        elif (match := _FORK.match(line)) is not None and not match.group(1):
            self.fork, self.forks = int(match.group(2)), int(match.group(3))

    def _failure_detail(self, text: str) -> None:
        """Complete the pending failure with the exception line, or the fork's first stderr line."""
        if self._pending_vm and not self._in_stderr:
            self._in_stderr = bool(_STDERR_START.match(text))
            return
        if text == _STDERR_END:
            self._pending = None
        elif text and not text.startswith("<"):
            self.failures[self._pending] += f": {text}"
            self._pending = None

    def _add_failure(self, detail: str | None) -> int | None:
        """Record a failure of the current benchmark once; its index, None if already recorded."""
        name = self._display() if self._name is not None else "JMH"
        if any(failure == name or failure.startswith(name + ":") for failure in self.failures):
            return None
        self.failures.append(name if detail is None else f"{name}: {detail}")
        return len(self.failures) - 1

    def _display(self) -> str:
        return BenchmarkCase.of("jmh", self._name or "?", self._params).display_name
