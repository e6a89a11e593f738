"""Values the results store takes and gives (the contract between experiment and store)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from rigorbench.model import BenchmarkCase, Metric, Series


@dataclass(frozen=True)
class VersionInfo:
    label: str
    source: str            # the revision or directory the user named
    commit: str | None     # resolved commit hash, when under git
    dirty: bool | None     # uncommitted changes, when under git


@dataclass(frozen=True)
class Execution:
    """One planned harness invocation: trial ``trial`` of version ``label``, at ``position``
    in the executed order (0-based over the whole experiment)."""

    trial: int
    label: str
    position: int


@dataclass(frozen=True)
class RunInfo:
    run_id: int
    created: str                  # ISO 8601
    status: str                   # "running" | "interrupted" | "finished"
    harness: str
    project: str
    order: str                    # "rmit" | "sequential"
    seed: int
    settings: Mapping             # RunSettings.as_dict() plus experiment settings
    versions: tuple[VersionInfo, ...]
    schedule: tuple[Execution, ...]
    wall_seconds: float | None = None
    harness_seconds: float | None = None
    tool_version: str = ""

    @property
    def setup(self) -> "RunSetup":
        return RunSetup.of(self.settings)


SETUP_KEY = "setup"    # the run's one typed setup in its settings


@dataclass(frozen=True)
class RunSetup:
    """How a run's trials are run, as stored under ``settings["setup"]``: where (``executor``:
    ``{"kind": "local"}`` or ``{"kind": "cluster", ...}``), when it stops (``rule``:
    ``{"kind": "fixed", "trials": n}`` or ``{"kind": "until_decided", ...}``), and the warmups
    ``--warmup auto`` chose (``{name: {"warmup", "reached", "starts"}}``) with the pilot's warmup.

    The experiment engine's layers fill in their parts (the executor's and the rule's
    ``as_dict``); this is only their stored form, readable by every layer. Runs stored before
    the one key (``until_decided``, ``warmup_auto``, ``pilot_warmup`` and ``cluster`` keys)
    read the same way."""

    executor: Mapping = field(default_factory=lambda: {"kind": "local"})
    rule: Mapping = field(default_factory=lambda: {"kind": "fixed", "trials": 1})
    warmups: Mapping | None = None
    pilot_warmup: int | None = None

    @classmethod
    def of(cls, settings: Mapping) -> "RunSetup":
        stored = settings.get(SETUP_KEY) if isinstance(settings, Mapping) else None
        if isinstance(stored, Mapping):
            return cls(stored["executor"], stored["rule"], stored.get("warmups"), stored.get("pilot_warmup"))
        settings = settings if isinstance(settings, Mapping) else {}
        # a store written by hand or damaged may hold anything there: what is not a table is absent
        cluster, sequential = (value if isinstance(value := settings.get(key), Mapping) else None
                               for key in ("cluster", "until_decided"))
        return cls({"kind": "cluster", **cluster} if cluster else {"kind": "local"},
                   {"kind": "until_decided", **sequential} if sequential else {"kind": "fixed", "trials": int(settings.get("trials", 1))},
                   settings.get("warmup_auto"), settings.get("pilot_warmup"))

    def as_dict(self) -> dict:
        return {"executor": dict(self.executor), "rule": dict(self.rule), "warmups": self.warmups, "pilot_warmup": self.pilot_warmup}

    @property
    def cluster(self) -> Mapping | None:
        """The cluster executor's stored settings (None: this machine)."""
        return self.executor if self.executor.get("kind") == "cluster" else None

    @property
    def until_decided(self) -> Mapping | None:
        """The adaptive rule's stored form (None: a fixed design)."""
        return self.rule if self.rule.get("kind") == "until_decided" else None


@dataclass(frozen=True)
class ExecutionRecord:
    """A finished execution as stored (without its samples)."""

    trial: int
    label: str
    position: int
    status: str                   # "done" | "failed" | "timeout"
    started: str
    ended: str
    harness_seconds: float
    environment: Mapping[str, str] = field(default_factory=dict)
    failures: tuple[str, ...] = ()
    output_tail: str = ""
    message: str = ""
    samples: int = 0


@dataclass(frozen=True)
class TrialRecord:
    """What the store keeps of one finished execution (one trial of one version)."""

    status: str                         # done | failed | timeout
    started: str                        # ISO 8601
    ended: str
    harness_seconds: float
    series: Sequence[Series]            # every iteration measured, also of a failed trial
    environment: Mapping[str, str]
    failures: Sequence[str] = ()        # one line per failed benchmark
    output_tail: str = ""
    message: str = ""


def check_plan(versions: Sequence[VersionInfo], schedule: Sequence[Execution]) -> None:
    """A run's versions have distinct labels and its schedule names each (trial, version) once."""
    labels = [v.label for v in versions]
    if not labels or len(set(labels)) != len(labels):
        raise ValueError(f"a run needs distinct version labels, got {labels}")
    unknown = sorted({e.label for e in schedule} - set(labels))
    if unknown:
        raise ValueError(f"the schedule names versions the run does not have: {unknown}")
    pairs, positions = {(e.trial, e.label) for e in schedule}, {e.position for e in schedule}
    if len(pairs) != len(schedule) or len(positions) != len(schedule):
        raise ValueError("the schedule repeats a (trial, version) pair or a position")


@dataclass(frozen=True)
class HistoryPoint:
    """One point of a history: a benchmark case and metric at one commit of one branch on
    one kind of machine, with its summary (``n`` values, their ``mean`` and the mean's CI at
    ``confidence``; no CI for an imported number without one).

    ``run_id`` and ``label`` name the stored run and version whose samples it summarises;
    ``source`` says where it came from ("run 3 (v2)", or an imported file).
    """

    case: BenchmarkCase
    metric: Metric
    branch: str                         # "" when none was given
    machine: str                        # the machine kind (rigorbench.analysis.machines)
    commit: str
    time: str                           # the commit's time, UTC, ISO 8601
    source: str
    n: int
    mean: float
    ci_low: float | None = None
    ci_high: float | None = None
    confidence: float | None = None
    dirty: bool | None = None
    run_id: int | None = None
    label: str | None = None
    machine_facts: Mapping[str, str] = field(default_factory=dict)
    added: str = ""                     # when it was stored (set by the store)

    def __post_init__(self) -> None:
        if not self.commit:
            raise ValueError("a history point needs a commit")
        if (self.ci_low is None) != (self.ci_high is None):
            raise ValueError("a history point's CI has both bounds or none")
