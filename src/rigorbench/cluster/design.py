"""Which instance runs which trial: the two sampling strategies of Laaber et al.
(``shared/reference/004``, section 5.2).

* ``trial-based``: every instance runs every version, in a fresh random order in each of its
  trials (RMIT within the instance). Both versions see the same machines, so the comparison
  is paired by instance; the paper finds it detects smaller slowdowns with fewer instances
  (5.4.3) and recommends it.
* ``instance-based``: the instances are split between the versions, each instance running one
  version for all its trials: what comparing against results measured earlier elsewhere
  amounts to; it needs many more instances for the same false-positive rate (5.3).

Trials are numbered over the whole experiment: instance slot ``i`` owns trials
``i * T .. i * T + T - 1`` for ``T`` trials per instance, so the store's (trial, version)
schedule is the one of a single machine and resuming works the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rigorbench.analysis.settings import one_of
from rigorbench.errors import UserError
from rigorbench.store.api import Execution

DESIGNS = ("trial-based", "instance-based")


@dataclass(frozen=True)
class Placement:
    design: str                   # one of DESIGNS
    instances: int                # instance slots
    trials_per_instance: int

    def __post_init__(self) -> None:
        one_of("--design", self.design, DESIGNS)
        if self.instances < 1:
            raise UserError(f"--instances must be at least 1, got {self.instances}")
        if self.trials_per_instance < 1:
            raise UserError(f"--trials must be at least 1, got {self.trials_per_instance}")

    def check_versions(self, labels: list[str]) -> None:
        """Instance-based sampling gives each version the same number of its own instances."""
        if self.design == "instance-based" and self.instances % len(labels):
            raise UserError(
                f"--design instance-based splits the instances between the {len(labels)} versions: "
                f"--instances must be a multiple of {len(labels)}, got {self.instances}"
            )

    @property
    def trials(self) -> int:
        """Trials over the whole experiment (the store's trial numbers)."""
        return self.instances * self.trials_per_instance

    def slot_of(self, trial: int) -> int:
        """The instance slot that owns a trial: its own trials first, then (trials an adaptive
        experiment adds, one per instance a look) in turn."""
        if trial < self.trials:
            return trial // self.trials_per_instance
        return (trial - self.trials) % self.instances

    def version_of_slot(self, slot: int, labels: list[str]) -> str | None:
        """The one version an instance-based slot runs (None: every version, trial-based)."""
        return labels[slot % len(labels)] if self.design == "instance-based" else None

    def schedule(self, labels: list[str], seed: int) -> list[Execution]:
        """The executions in trial order; within a trial-based trial, a random version order."""
        self.check_versions(labels)
        rng = np.random.default_rng(seed)
        pairs: list[tuple[int, str]] = []
        for trial in range(self.trials):
            only = self.version_of_slot(self.slot_of(trial), labels)
            if only is not None:
                pairs.append((trial, only))
            else:
                pairs.extend((trial, labels[i]) for i in rng.permutation(len(labels)))
        return [Execution(trial, label, position) for position, (trial, label) in enumerate(pairs)]

    def as_dict(self) -> dict:
        return {"design": self.design, "instances": self.instances, "trials_per_instance": self.trials_per_instance}

    @classmethod
    def from_dict(cls, data: dict) -> "Placement":
        return cls(str(data["design"]), int(data["instances"]), int(data["trials_per_instance"]))
