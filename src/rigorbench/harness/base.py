"""The small Protocol every harness adapter implements (STYLE.md rule 6).

The experiment loop knows only this module: it asks a harness to build a version once,
then to run one trial of it at a time. An adapter for Go or Google Benchmark plugs in by
implementing :class:`Harness` and registering itself in ``rigorbench.harness.HARNESSES``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Protocol

from rigorbench.model import Series


@dataclass(frozen=True)
class RunSettings:
    """What one trial runs: the experiment's harness settings (JMH option in brackets)."""

    forks: int = 3                      # -f
    warmup_iterations: int = 5          # -wi
    iterations: int = 10                # -i
    warmup_time: str = "1s"             # -w
    iteration_time: str = "1s"          # -r
    mode: str | None = None             # -bm (None: as the benchmark declares)
    time_unit: str | None = None        # -tu
    include: tuple[str, ...] = ()       # include regexes (empty: all benchmarks)
    params: tuple[tuple[str, str], ...] = ()  # -p name=v1,v2
    jvm_args: tuple[str, ...] = ()      # -jvmArgs
    profilers: tuple[str, ...] = ("gc",)  # -prof gc (default), comp when asked
    threads: int | None = None          # -t
    timeout_s: float | None = None      # per trial; None = no limit

    def as_dict(self) -> dict:
        return {
            "forks": self.forks,
            "warmup_iterations": self.warmup_iterations,
            "iterations": self.iterations,
            "warmup_time": self.warmup_time,
            "iteration_time": self.iteration_time,
            "mode": self.mode,
            "time_unit": self.time_unit,
            "include": list(self.include),
            "params": [list(p) for p in self.params],
            "jvm_args": list(self.jvm_args),
            "profilers": list(self.profilers),
            "threads": self.threads,
            "timeout_s": self.timeout_s,
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> "RunSettings":
        return cls(
            forks=int(data["forks"]),
            warmup_iterations=int(data["warmup_iterations"]),
            iterations=int(data["iterations"]),
            warmup_time=str(data["warmup_time"]),
            iteration_time=str(data["iteration_time"]),
            mode=data.get("mode"),
            time_unit=data.get("time_unit"),
            include=tuple(data.get("include", ())),
            params=tuple(tuple(p) for p in data.get("params", ())),
            jvm_args=tuple(data.get("jvm_args", ())),
            profilers=tuple(data.get("profilers", ("gc",))),
            threads=data.get("threads"),
            timeout_s=data.get("timeout_s"),
        )


@dataclass(frozen=True)
class Build:
    """A built version: what ``run_trial`` needs to run it."""

    project_dir: Path
    artifact: Path                    # e.g. target/benchmarks.jar
    tool_versions: Mapping[str, str] = field(default_factory=dict)  # e.g. {"maven": "3.8.7", "jmh": "1.37"}
    seconds: float = 0.0


@dataclass(frozen=True)
class Progress:
    """One event streamed while a trial runs (for progress bars)."""

    benchmark: str | None = None      # the benchmark now running
    fork: int | None = None           # 1-based
    forks: int | None = None
    iteration: int | None = None      # 1-based within warmup or measurement
    warmup: bool = False
    line: str = ""                    # the raw console line


# Trial status values stored by the experiment.
DONE, FAILED, TIMEOUT = "done", "failed", "timeout"


@dataclass(frozen=True)
class TrialOutcome:
    """What one trial (one harness invocation of one version) produced.

    ``status`` is ``done`` (all ran; individual benchmark failures are listed in
    ``failures``), ``failed`` (the harness process failed as a whole) or ``timeout`` (killed
    at the per-trial timeout). ``series`` holds every iteration that finished, also when the
    trial failed or timed out.
    """

    status: str
    series: tuple[Series, ...]
    harness_seconds: float
    environment: Mapping[str, str] = field(default_factory=dict)
    failures: tuple[str, ...] = ()    # one line per failed benchmark
    output_tail: str = ""             # the last lines of the console output
    message: str = ""                 # one line explaining a failed/timeout status


class HarnessError(Exception):
    """Building or listing failed; the message names the version and the command's output tail."""


class Harness(Protocol):
    name: str

    def build(self, project_dir: Path, log: Callable[[str], None]) -> Build:
        """Build the benchmarks of one version (raises HarnessError with the output tail)."""

    def list_benchmarks(self, build: Build, settings: RunSettings) -> list[str]:
        """Fully qualified names of the benchmarks ``settings`` selects."""

    def run_trial(
        self,
        build: Build,
        settings: RunSettings,
        work_dir: Path,
        on_progress: Callable[[Progress], None],
    ) -> TrialOutcome:
        """Run one trial (one harness invocation) and return what it measured."""
