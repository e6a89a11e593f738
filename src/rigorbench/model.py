"""The data model: frozen, validated values shared by every layer.

Every measured value sits in a hierarchy of repetition levels, as in Kalibera & Jones and
Laaber et al. (``shared/reference/004``, section 3):

    version > instance > trial > fork > iteration [> invocation]

A :class:`SampleTable` holds one row per measured value of one benchmark case and metric,
with the level codes as integer columns. Constructors validate and do no I/O.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Mapping

import numpy as np

# Metric names used across harnesses (ARCHITECTURE.md, "Data model").
TIME = "time"
THROUGHPUT = "throughput"
ALLOC = "alloc"

_LEVEL_COLUMNS = ("instance", "trial", "fork", "iteration")


@dataclass(frozen=True, order=True)
class BenchmarkCase:
    """A benchmark identified by harness, fully qualified name and parameters.

    Parameter values stay strings (JMH ``@Param`` values are strings) and are ordered by
    parameter name, so two cases with the same parameters compare equal.
    """

    harness: str
    name: str
    params: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a benchmark case needs a name")
        ordered = tuple(sorted((str(k), str(v)) for k, v in self.params))
        object.__setattr__(self, "params", ordered)

    @classmethod
    def of(cls, harness: str, name: str, params: Mapping[str, str] | None = None) -> "BenchmarkCase":
        return cls(harness, name, tuple((params or {}).items()))

    @property
    def params_dict(self) -> dict[str, str]:
        return dict(self.params)

    @property
    def display_name(self) -> str:
        """``name`` or ``name{k=v,k2=v2}``: the form tables print."""
        if not self.params:
            return self.name
        inner = ",".join(f"{k}={v}" for k, v in self.params)
        return f"{self.name}{{{inner}}}"


def short_name(name: str) -> str:
    """``Class.method`` of a fully qualified JMH name (the whole name when it has fewer dots)."""
    return ".".join(name.rsplit(".", 2)[-2:])


@dataclass(frozen=True, order=True)
class Metric:
    """What was measured, its unit, and which direction is better.

    ``primary`` marks the harness's main score (JMH's primary metric, Go's ns/op).
    """

    name: str
    unit: str
    higher_is_better: bool
    primary: bool = False

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a metric needs a name")


def _column(values, dtype) -> np.ndarray:
    array = np.array(values, dtype=dtype, copy=True).reshape(-1)
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class SampleTable:
    """Columns of equal length, one row per measured value (read-only numpy arrays).

    ``instance``, ``trial``, ``fork`` and ``iteration`` are integer codes of the repetition
    levels (0-based, as they occur); ``warmup`` flags warmup iterations, which are kept, not
    discarded; ``count`` is 1 except for invocation histograms (JMH SampleTime), where one
    row stands for ``count`` invocations that all took ``value``.
    """

    instance: np.ndarray
    trial: np.ndarray
    fork: np.ndarray
    iteration: np.ndarray
    warmup: np.ndarray
    value: np.ndarray
    count: np.ndarray

    def __post_init__(self) -> None:
        for name in _LEVEL_COLUMNS:
            object.__setattr__(self, name, _column(getattr(self, name), np.int64))
        object.__setattr__(self, "warmup", _column(self.warmup, bool))
        object.__setattr__(self, "value", _column(self.value, np.float64))
        object.__setattr__(self, "count", _column(self.count, np.float64))
        n = len(self.value)
        for name in (*_LEVEL_COLUMNS, "warmup", "count"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"column {name!r} has {len(getattr(self, name))} rows, value has {n}")
        if n and np.any(self.count <= 0):
            raise ValueError("counts must be positive")

    @classmethod
    def build(cls, value, *, fork=None, iteration=None, trial=None, instance=None, warmup=None,
              count=None) -> "SampleTable":
        """Make a table from columns; missing level columns default to 0, count to 1."""
        value = np.asarray(value, dtype=np.float64).reshape(-1)
        n = len(value)
        zeros = np.zeros(n, dtype=np.int64)
        return cls(instance=zeros if instance is None else instance,
                   trial=zeros if trial is None else trial, fork=zeros if fork is None else fork,
                   iteration=np.arange(n) if iteration is None else iteration,
                   warmup=np.zeros(n, dtype=bool) if warmup is None else warmup, value=value,
                   count=np.ones(n) if count is None else count)

    @classmethod
    def concat(cls, tables: "list[SampleTable]") -> "SampleTable":
        if not tables:
            return cls.build([])
        return cls(**{name: np.concatenate([getattr(t, name) for t in tables]) for name in cls.columns()})

    @staticmethod
    def columns() -> tuple[str, ...]:
        return (*_LEVEL_COLUMNS, "warmup", "value", "count")

    def __len__(self) -> int:
        return len(self.value)

    def select(self, mask: np.ndarray) -> "SampleTable":
        return SampleTable(**{name: getattr(self, name)[mask] for name in self.columns()})

    def with_columns(self, **columns) -> "SampleTable":
        return replace(self, **columns)

    def measurement(self) -> "SampleTable":
        """The rows that are not warmup."""
        return self.select(~self.warmup)

    def iteration_means(self) -> "SampleTable":
        """One row per iteration: the count-weighted mean of its rows (an invocation
        histogram becomes the iteration score JMH reports); counts become 1."""
        keys = np.stack([self.instance, self.trial, self.fork, self.iteration, self.warmup.astype(np.int64)], axis=1)
        unique, inverse = np.unique(keys, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        weight = np.bincount(inverse, weights=self.count)
        total = np.bincount(inverse, weights=self.value * self.count)
        return SampleTable.build(
            total / weight, instance=unique[:, 0], trial=unique[:, 1], fork=unique[:, 2],
            iteration=unique[:, 3], warmup=unique[:, 4].astype(bool),
        )

    @property
    def has_histogram(self) -> bool:
        return bool(len(self) and np.any(self.count != 1))


@dataclass(frozen=True, eq=False)
class Series:
    """All samples of one benchmark case and one metric, with their repetition levels.

    ``version`` is set only by formats that carry it inside the file (``pa`` CSV commits).
    """

    case: BenchmarkCase
    metric: Metric
    samples: SampleTable
    version: str | None = None


@dataclass(frozen=True, eq=False)
class ResultFile:
    """What a reader got from one file: its series and the environment it states."""

    path: str
    format: str
    series: tuple[Series, ...]
    environment: Mapping[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    # Benchmarks the harness reported as failed, as "case" or "case: what failed" (the form
    # the harness adapters store with a trial).
    failures: tuple[str, ...] = ()
    # SHA-256 of the file's content (after gunzip): a file given twice is one trial.
    digest: str = ""


@dataclass(frozen=True)
class Quantity:
    """A value with its unit, e.g. ``Quantity(24.0, "B/op")``."""

    value: float
    unit: str

    def __str__(self) -> str:
        return f"{self.value:g} {self.unit}"


@dataclass(frozen=True)
class Diagnostic:
    """A warning attached to a result, rendered late (STYLE.md rule 4)."""

    code: str
    message: str
    severity: Severity = "warning"   # given as a Severity or its name
    hint: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "severity", Severity(self.severity))


class Severity(enum.StrEnum):
    """How much a diagnostic or finding matters, ordered: info < warning < error.

    A ``str`` too, so it prints, compares with and serializes to its name ("warning")."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _SEVERITY_ORDER.index(self)

    def __lt__(self, other: object) -> bool:
        return self.rank < Severity(other).rank

    def __le__(self, other: object) -> bool:
        return self.rank <= Severity(other).rank

    def __gt__(self, other: object) -> bool:
        return self.rank > Severity(other).rank

    def __ge__(self, other: object) -> bool:
        return self.rank >= Severity(other).rank

    __hash__ = str.__hash__


_SEVERITY_ORDER = (Severity.INFO, Severity.WARNING, Severity.ERROR)
# The names, least severe first (for choices and counts).
SEVERITIES = tuple(s.value for s in _SEVERITY_ORDER)


@dataclass(frozen=True)
class Measured:
    """What a stored run measured for the benchmarks a lint finding concerns, and what the
    measurement decided about the finding (``lint --store``; see :mod:`rigorbench.lint.grading`).

    ``decision`` is ``confirmed`` (the data shows the harm the rule warns of), ``cleared`` (the
    data shows it is negligible; the finding becomes ``info``) or ``kept`` (the data does not
    decide). ``low_ns`` .. ``high_ns`` is the range of the matched cases' mean time per
    operation (one value per parameter set), ``value_ns`` their median; ``benchmarks`` the
    stored names matched, ``params`` each parameter's values seen; ``source`` names the run
    and version; ``reason`` says the decision in words.
    """

    decision: str
    value_ns: float
    low_ns: float
    high_ns: float
    cases: int
    benchmarks: tuple[str, ...]
    params: tuple[tuple[str, tuple[str, ...]], ...]
    source: str
    reason: str

    def __post_init__(self) -> None:
        if self.decision not in ("confirmed", "cleared", "kept"):
            raise ValueError(f"decision must be confirmed, cleared or kept, not {self.decision!r}")
        if not 0 <= self.low_ns <= self.value_ns <= self.high_ns or self.cases < 1:
            raise ValueError("a measurement needs at least one case and low <= value <= high times")


@dataclass(frozen=True, order=True)
class Finding:
    """A lint finding: where in the source a benchmark measures the wrong thing.

    ``line`` and ``column`` are 1-based (as compilers and SARIF count); ``benchmark`` is the
    benchmark method's ``Class.method`` (empty when the finding is not inside one, e.g. an
    ``OptionsBuilder`` call). ``fixable`` says whether ``lint --fix`` rewrites it.
    ``concerns`` names the benchmarks a finding outside them is about (an INVO fixture: the
    benchmarks that use it, ``pkg.Class.method``); ``measured`` is what a stored run said
    about it (``lint --store``). Neither takes part in comparisons.
    """

    path: str
    line: int
    column: int
    rule: str
    severity: Severity               # given as a Severity or its name
    message: str
    benchmark: str = ""
    hint: str = ""
    fixable: bool = False
    end_line: int = 0
    end_column: int = 0
    fingerprint: str = ""            # stable across line moves; see rigorbench.lint.suppress
    concerns: tuple[str, ...] = field(default=(), compare=False)
    measured: Measured | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {', '.join(SEVERITIES)}, not {self.severity!r}")
        object.__setattr__(self, "severity", Severity(self.severity))
        if self.line < 1 or self.column < 1:
            raise ValueError("line and column are 1-based")


# lint --measure's verdicts on a finding (ARCHITECTURE.md, lint document).
IMPACT_VERDICTS = ("confirmed", "no_effect", "inconclusive", "not_measured")


@dataclass(frozen=True)
class ImpactCase:
    """One benchmark case of a measured finding: its parameters, the comparison's verdict on
    the fixed variant (``slower``/``faster``/``unchanged``/``inconclusive``, in the user's
    sense) and the ratio fixed/original of the primary score with its interval."""

    params: tuple[tuple[str, str], ...]
    change: str
    estimate: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class Impact:
    """What measuring a finding's fix did (``lint --measure``; Costa et al. 2019, RQ2).

    ``verdict``: ``confirmed`` (the fixed variant moved the way the rule predicts),
    ``no_effect`` (equivalent within the threshold), ``inconclusive`` (neither, or cases
    that disagree), ``not_measured`` (``reason`` says why). ``benchmark`` is the full name
    measured, ``unit`` and ``higher_is_better`` its primary score's, ``predicted`` the
    rule's expected change of the fixed variant (``slower``/``faster``), ``cases`` one per
    benchmark case (several with @Param), ``shared`` how many findings this measurement
    covers (every fixable finding of a benchmark is fixed in the one fixed variant)."""

    verdict: str
    reason: str = ""
    benchmark: str = ""
    unit: str = ""
    higher_is_better: bool = False
    predicted: str = ""
    cases: tuple[ImpactCase, ...] = ()
    shared: int = 1

    def __post_init__(self) -> None:
        if self.verdict not in IMPACT_VERDICTS:
            raise ValueError(f"impact verdict must be one of {', '.join(IMPACT_VERDICTS)}, not {self.verdict!r}")

    @property
    def ratio(self) -> ImpactCase | None:
        """The one case's ratio; None when nothing was measured or several cases were."""
        return self.cases[0] if len(self.cases) == 1 else None


@dataclass(frozen=True)
class Measurement:
    """``lint --measure``'s results: an :class:`Impact` per finding (every finding has one),
    and where and how the A/B ran: the stored run (``run_id`` and ``store``; None when the
    run was kept in a temporary store), its trials, and the comparison's threshold and
    confidence level."""

    impacts: Mapping[Finding, Impact]
    trials: int = 0
    threshold: float = 0.0
    confidence: float = 0.0
    run_id: int | None = None
    store: str | None = None
