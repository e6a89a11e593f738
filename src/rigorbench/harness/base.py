"""The small Protocol every harness adapter implements (STYLE.md rule 6).

The experiment loop knows only this module: it asks a harness to build a version once,
then to run one trial of it at a time. An adapter for Go or Google Benchmark plugs in by
implementing :class:`Harness` and registering itself in ``rigorbench.harness.HARNESSES``.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Protocol, Sequence

if TYPE_CHECKING:
    from rigorbench.harness.cache import BuildCache

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
        """Every setting, in field order, tuples as lists (JSON's arrays)."""
        return {f.name: _as_lists(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping) -> "RunSettings":
        return cls(forks=int(data["forks"]), warmup_iterations=int(data["warmup_iterations"]),
                   iterations=int(data["iterations"]), warmup_time=str(data["warmup_time"]),
                   iteration_time=str(data["iteration_time"]), mode=data.get("mode"),
                   time_unit=data.get("time_unit"), include=tuple(data.get("include", ())),
                   params=tuple(tuple(p) for p in data.get("params", ())),
                   jvm_args=tuple(data.get("jvm_args", ())),
                   profilers=tuple(data.get("profilers", ("gc",))), threads=data.get("threads"),
                   timeout_s=data.get("timeout_s"))


def _as_lists(value):
    return [_as_lists(item) for item in value] if isinstance(value, (tuple, list)) else value


@dataclass(frozen=True)
class BuildSpec:
    """How one version is built and run, where the user said so (None: inferred).

    ``command`` is an argument list run in the version's project directory (no shell);
    ``jar`` a path or glob relative to it; ``module`` the benchmark module of a multi-module
    build (directory or artifactId); ``java_home`` the JDK that builds and runs it.
    """

    command: tuple[str, ...] | None = None
    jar: str | None = None
    module: str | None = None
    java_home: str | None = None

    def as_dict(self) -> dict:
        """The settings the user gave (unset ones left out)."""
        values = {
            "command": list(self.command) if self.command is not None else None,
            "jar": self.jar, "module": self.module, "java_home": self.java_home,
        }
        return {key: value for key, value in values.items() if value is not None}

    @classmethod
    def from_dict(cls, data: Mapping | None) -> "BuildSpec":
        data = data or {}
        command = data.get("command")
        return cls(
            command=tuple(command) if command is not None else None,
            jar=data.get("jar"), module=data.get("module"), java_home=data.get("java_home"),
        )

    def merged(self, other: "BuildSpec") -> "BuildSpec":
        """``other``'s settings where it has them, else ours (a version's over the file's)."""
        return BuildSpec(*(theirs if theirs is not None else ours
                           for ours, theirs in zip(astuple(self), astuple(other))))


@dataclass(frozen=True)
class Build:
    """A built version: what ``run_trial`` needs to run it."""

    project_dir: Path
    artifact: Path                    # e.g. target/benchmarks.jar
    tool_versions: Mapping[str, str] = field(default_factory=dict)  # e.g. {"maven": "3.8.7", "jmh": "1.37"}
    seconds: float = 0.0
    java_command: tuple[str, ...] = ()   # the JVM that runs the artifact (empty: the harness's)
    main_class: str | None = None     # run as ``-cp ARTIFACT MAIN`` when the manifest names another main
    cached: bool = False              # taken from the build cache, not built now


@dataclass(frozen=True)
class ListedBenchmark:
    """A benchmark a built version has, with its parameters' default values."""

    name: str
    params: tuple[tuple[str, tuple[str, ...]], ...] = ()


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
    """Building or listing failed: the message (one line) names the command; ``details`` are
    the lines shown below it (how to reproduce it, the last lines of its output)."""

    def __init__(self, message: str, details: tuple[str, ...] | list[str] = ()) -> None:
        super().__init__(message)
        self.details = tuple(details)


class Harness(Protocol):
    name: str

    def build(self, project_dir: Path, spec: BuildSpec, log: Callable[[str], None], cache: "BuildCache | None" = None) -> Build:
        """Build the benchmarks of one version, or take them from ``cache`` (raises
        HarnessError with the output tail)."""

    def list_benchmarks(self, build: Build, settings: RunSettings) -> list[ListedBenchmark]:
        """The benchmarks ``settings`` selects, with their parameters."""

    def exact_includes(self, names: Sequence[str], within: Sequence[str] = ()) -> tuple[str, ...]:
        """Include patterns (``RunSettings.include``) that select exactly ``names`` as
        ``list_benchmarks`` names them, keeping what the user's patterns ``within`` select
        inside a benchmark (Go's sub-benchmarks); UserError when the harness cannot run a subset."""

    def run_trial(self, build: Build, settings: RunSettings, work_dir: Path,
                  on_progress: Callable[[Progress], None]) -> TrialOutcome:
        """Run one trial (one harness invocation) and return what it measured."""
