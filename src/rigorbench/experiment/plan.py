"""The experiment plan and its execution order.

Randomized multiple interleaved trials (RMIT; Laaber et al., ``shared/reference/004``,
sections 3.3 and 5.2.2, "trial-based sampling"): every trial runs every version once, in a
fresh random order, so a slow drift of a noisy machine hits all versions alike. The
``sequential`` order (all trials of one version, then the next) exists to compare against;
it is what a naive before/after measurement does. A ``duet`` run (``--design duet``;
:mod:`rigorbench.experiment.duet`) runs the two versions of a trial at the same time, so its
schedule lists every trial's versions in the plan's order, the baseline first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

import numpy as np

from rigorbench.analysis.settings import one_of
from rigorbench.errors import UserError
from rigorbench.harness.base import BuildSpec, RunSettings
from rigorbench.store.api import Execution

if TYPE_CHECKING:
    from rigorbench.analysis.stopping import UntilDecided
    from rigorbench.experiment.address import ClusterOptions

ORDERS = ("rmit", "sequential")     # --order
DUET = "duet"                        # --design duet: stored as the run's order
LOCAL_DESIGNS = (*ORDERS, DUET)


@dataclass(frozen=True)
class VersionSpec:
    """A version as the user named it: a directory or a git revision, its label, and how to build it."""

    label: str
    source: str
    build: BuildSpec = BuildSpec()


@dataclass(frozen=True)
class ExperimentPlan:
    project: str                  # the benchmark project as given (a directory)
    harness: str
    versions: tuple[VersionSpec, ...]
    trials: int
    order: str
    seed: int
    settings: RunSettings
    min_versions: int = 2         # 1 for 'record', which runs one version for the history
    # Kept with the run's settings: the command that resumes it ("command", default "ab")
    # and what that command needs then ('record' keeps where its history points go).
    notes: Mapping[str, object] | None = None
    # ab --until-decided: trials added one at a time until each benchmark is decided
    # (analysis/stopping.py); ``trials`` is then the first look's.
    until_decided: "UntilDecided | None" = None
    # --warmup auto: the pilot fork's warmup iterations (None: the configured warmup for all)
    pilot_warmup: int | None = None
    # --cluster: trials run on a Dask cluster's instances (cluster/); ``trials`` is then per instance
    cluster: "ClusterOptions | None" = None

    def __post_init__(self) -> None:
        labels = [v.label for v in self.versions]
        if len(labels) < self.min_versions:
            raise UserError("an experiment needs at least two versions" if self.min_versions == 2 else "an experiment needs a version")
        duplicates = sorted({label for label in labels if labels.count(label) > 1})
        if duplicates:
            raise UserError(f"version labels must differ; repeated: {', '.join(duplicates)}")
        if self.trials < 1:
            raise UserError(f"--trials must be at least 1, got {self.trials}")
        one_of("--order", self.order, LOCAL_DESIGNS)
        if self.order == DUET:
            self._check_duet(labels)
        if self.cluster is not None and self.order != "rmit":
            raise UserError("--cluster needs --order rmit: --design says how trials are spread over instances")
        if self.until_decided is not None and self.order == "sequential":
            raise UserError("--until-decided needs --order rmit: every trial must run every version")
        if self.settings.forks < 1:
            raise UserError("--forks must be at least 1: with 0 forks JMH measures inside its own JVM (Costa et al.'s FORK bad practice)")

    def _check_duet(self, labels: list[str]) -> None:
        """A duet run is two versions side by side on this machine."""
        if self.cluster is not None:
            raise UserError("--design duet runs both versions at once on this machine's CPUs; it does not go with --cluster")
        if len(labels) != 2:
            raise UserError(f"--design duet runs two versions side by side; this experiment has {len(labels)}")

    def schedule(self) -> list[Execution]:
        return make_schedule([v.label for v in self.versions], self.trials, self.order, self.seed)


def make_schedule(labels: list[str], trials: int, order: str, seed: int) -> list[Execution]:
    """The executed order: (trial, version) pairs with their positions."""
    pairs: list[tuple[int, str]] = []
    if order == "sequential":
        pairs = [(trial, label) for label in labels for trial in range(trials)]
    elif order == DUET:     # a trial's versions run at once: no order to randomize
        pairs = [(trial, label) for trial in range(trials) for label in labels]
    else:
        rng = np.random.default_rng(seed)
        for trial in range(trials):
            pairs.extend((trial, labels[i]) for i in rng.permutation(len(labels)))
    return [Execution(trial, label, position) for position, (trial, label) in enumerate(pairs)]
