"""Values the results store takes and gives (the contract between experiment and store)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from rigorbench.model import Series


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
