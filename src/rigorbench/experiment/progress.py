"""Progress of a running experiment: a live bar on a terminal, plain lines elsewhere (CI logs).

The ETA counts iterations: every execution is expected to run as many iterations as the
first finished one did (before that, benchmarks x forks x (warmup + measurement)), and the
time per iteration is measured as the experiment goes.
"""

from __future__ import annotations

import contextlib
import time
from typing import IO, ContextManager, Iterator, Protocol

from rigorbench.harness.base import Progress, TrialOutcome
from rigorbench.model import short_name
from rigorbench.store.api import Execution
from rigorbench.units import format_duration  # noqa: F401  (re-exported: progress lines and run summaries use it)


class Reporter(Protocol):
    def message(self, text: str) -> None: ...
    def working(self, text: str) -> ContextManager[None]: ...
    def start(self, executions: int, trials: int, iterations_per_execution: int) -> None: ...
    def execution_started(self, execution: Execution) -> None: ...
    def progress(self, event: Progress) -> None: ...
    def execution_finished(self, execution: Execution, outcome: TrialOutcome) -> None: ...
    def close(self) -> None: ...


class EtaClock:
    """Iteration-based ETA for the whole experiment."""

    def __init__(self, executions: int, per_execution: int) -> None:
        self.executions = executions
        self.per_execution = max(1, per_execution)
        self.finished_executions = 0
        self.iterations_now = 0
        self.iterations_done = 0
        self.started = time.monotonic()

    def tick(self) -> None:
        self.iterations_now += 1

    def execution_done(self) -> None:
        if self.finished_executions == 0 and self.iterations_now:
            self.per_execution = self.iterations_now
        self.iterations_done += self.iterations_now
        self.iterations_now = 0
        self.finished_executions += 1

    @property
    def fraction(self) -> float:
        total = self.executions * self.per_execution
        done = self.finished_executions * self.per_execution + min(self.iterations_now, self.per_execution)
        return min(1.0, done / total) if total else 1.0

    def eta_seconds(self) -> float | None:
        fraction = self.fraction
        if fraction <= 0:
            return None
        elapsed = time.monotonic() - self.started
        return elapsed * (1 - fraction) / fraction


class PlainReporter:
    """One line per execution and per benchmark: readable in CI logs and pipes."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.clock: EtaClock | None = None
        self.trials = 0
        self.benchmark: str | None = None
        self.running: Execution | None = None

    def message(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()

    def working(self, text: str) -> ContextManager[None]:
        """Around a long step without progress events (a build): nothing more in a log."""
        return contextlib.nullcontext()

    def start(self, executions: int, trials: int, iterations_per_execution: int) -> None:
        self.clock = EtaClock(executions, iterations_per_execution)
        self.trials = trials

    def execution_started(self, execution: Execution) -> None:
        self.benchmark = None
        self.running = execution
        position = (self.clock.finished_executions + 1) if self.clock else execution.position + 1
        total = self.clock.executions if self.clock else "?"
        self.message(f"[{position}/{total}] trial {execution.trial + 1}/{self.trials}, version {execution.label}{self._eta()}")

    def progress(self, event: Progress) -> None:
        if self.clock and event.iteration is not None:
            self.clock.tick()
        if event.benchmark and event.benchmark != self.benchmark:
            self.benchmark = event.benchmark
            self.message(f"    {event.benchmark}")

    def execution_finished(self, execution: Execution, outcome: TrialOutcome) -> None:
        if self.clock:
            self.clock.execution_done()
        line = self._finished_prefix(execution) + f"{outcome.status} in {format_duration(outcome.harness_seconds)}"
        if outcome.message:
            line += f": {outcome.message}"
        self.message(line)
        for failure in outcome.failures:
            self.message(f"    failed: {failure}")

    def _finished_prefix(self, execution: Execution) -> str:
        # Under its header line, unless another execution started since (a duet run's pair).
        return "    " if execution == self.running else f"    version {execution.label}: "

    def _eta(self) -> str:
        eta = self.clock.eta_seconds() if self.clock and self.clock.finished_executions else None
        return f" (ETA {format_duration(eta)})" if eta is not None else ""

    def close(self) -> None:
        pass


class LiveReporter(PlainReporter):
    """A live progress bar (rich) on a terminal; finished executions scroll above it."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__(stream)
        from rich.console import Console
        from rich.progress import BarColumn, Progress as Bar, TextColumn, TimeElapsedColumn

        self.console = Console(file=stream)
        self.bar = Bar(TextColumn("{task.description}"), BarColumn(),
                       TextColumn("{task.percentage:>3.0f}%"), TimeElapsedColumn(),
                       TextColumn("ETA {task.fields[eta]}"), console=self.console, transient=True)
        self.task = None
        self.execution: Execution | None = None
        self.fork = ""

    def message(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False)

    @contextlib.contextmanager
    def working(self, text: str) -> Iterator[None]:
        """A spinner with the elapsed time while a build runs quietly (``mvn -q``)."""
        from rich.progress import Progress as Bar, SpinnerColumn, TextColumn, TimeElapsedColumn

        with Bar(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                 console=self.console, transient=True) as spinner:
            spinner.add_task(text, total=None)
            yield

    def start(self, executions: int, trials: int, iterations_per_execution: int) -> None:
        super().start(executions, trials, iterations_per_execution)
        self.bar.start()
        self.task = self.bar.add_task("starting", total=1000, eta="?")

    def execution_started(self, execution: Execution) -> None:
        self.execution = execution
        self.benchmark = None
        self._refresh()

    def progress(self, event: Progress) -> None:
        if event.iteration is not None and self.clock:
            self.clock.tick()
        if event.benchmark:
            self.benchmark = event.benchmark
        if event.fork is not None:
            self.fork = f"fork {event.fork}/{event.forks or '?'}"
        self._refresh(event)

    def execution_finished(self, execution: Execution, outcome: TrialOutcome) -> None:
        super().execution_finished(execution, outcome)
        self._refresh()

    def _finished_prefix(self, execution: Execution) -> str:
        # The bar replaces the per-trial header lines, so each finished line names its trial.
        return f"trial {execution.trial + 1}/{self.trials}, version {execution.label}: "

    def _refresh(self, event: Progress | None = None) -> None:
        if self.task is None or self.clock is None or self.execution is None:
            return
        e = self.execution
        where = f"trial {e.trial + 1}/{self.trials} {e.label}"
        if self.benchmark:
            where += f" {short_name(self.benchmark)} {self.fork}"
            if event and event.iteration is not None:
                where += f" {'warmup ' if event.warmup else ''}it {event.iteration}"
        eta = self.clock.eta_seconds() if self.clock.fraction > 0 else None
        self.bar.update(self.task, completed=self.clock.fraction * 1000, description=where,
                        eta=format_duration(eta) if eta is not None else "?")

    def close(self) -> None:
        self.bar.stop()


def make_reporter(stream: IO[str]) -> Reporter:
    """A live bar when ``stream`` is a terminal, plain lines otherwise."""
    isatty = getattr(stream, "isatty", lambda: False)
    return LiveReporter(stream) if isatty() else PlainReporter(stream)
