"""How much warmup: a pure function over one benchmark's pilot series.

**Warmup from a pilot fork** (:func:`auto_warmup`, ``--warmup auto``, issue 18). One
pilot fork runs with a generous warmup; its whole series (warmup and measurement
iterations, in order) goes through :func:`rigorbench.stats.steady.detect_steady_state`,
the detector that follows Traini et al. (EMSE 2022).  Later forks get as warmup the
steady-state start plus a margin.  The margin is ``max(min_margin, ceil(margin * start))``
with :data:`MARGIN` = 20% and :data:`MIN_MARGIN` = 2 iterations, capped at the pilot's
length, because

- the detector places the start on a grid, not on an iteration: on a series of a few
  thousand iterations PELT considers every ``jump``-th point (``jump = ceil(n / 300)``,
  e.g. 4 for a pilot of 1000), on a short series (under 500 iterations) the start is a
  block boundary (blocks of ``n / 20``, at least 5 iterations).  The true end of warmup
  may lie anywhere in the grid step after the reported change point;
- warmup is a decay whose tail is longer when the decay is slower, so the uncertainty of
  the start grows with the start: a relative margin follows it;
- a fork's JIT state is not identical from fork to fork (Barrett et al., OOPSLA 2017):
  a later fork may warm up a little later than the pilot;
- measured on the study's 50 benchmarks (the first 1500 iterations of each fork, the 400
  forks that both the study and the detector call steady by iteration 1250), the share of
  forks whose chosen warmup reaches the study's own start is 0.59 with no margin, 0.77 with
  10%, 0.78 with 20% and 0.80 with 50%: past 10-20% a larger margin buys little, because
  the forks it misses are those where the two starts are hundreds of iterations apart.

The detector's plateau must also be flat (:func:`plateau_drifts`): on a pilot of a few
hundred to a few thousand iterations PELT cuts a steady linear drift into steps, and the
last step's own drift is invisible to the walk-back and to the late-burst check (a pilot
of 1000 iterations that slows down fourfold, linearly, is "steady" from iteration ~750).
So the stretch from the start to the end of the pilot is cut in two halves, and when
their means differ by the detector's own test (95% bootstrap interval of the ratio wholly
outside 1 +/- 5%) the pilot has not settled.  A drift slow enough that the halves agree
within 5% (under about 10% across the plateau) still passes: it is inside the tolerance
that defines steady state here.

A pilot that never reached steady state (no plateau at all, a plateau only in its last
sixth, see ``steady.py``, or a drifting plateau) is *flagged* (``reached`` False) and its warmup is the whole
pilot's length -- the most that was observed, not a guess beyond it; the caller decides
whether to run the benchmark anyway and must report it.

Laaber et al.'s stoppage criteria, which ``benchmarks/replay_stopping.py`` compares with
this, live beside that script (``benchmarks/laaber_criteria.py``): no command uses them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rigorbench.stats.steady import _differs, detect_steady_state

MARGIN = 0.2      # relative margin added to the pilot's steady-state start
MIN_MARGIN = 2    # at least this many iterations of margin
TOLERANCE = 0.05  # the detector's tolerance, also for the two halves of the plateau


@dataclass(frozen=True)
class WarmupChoice:
    """Warmup chosen from one pilot fork.

    ``iterations``: warmup iterations for the later forks, the steady start plus the margin,
    at most ``len(pilot)``.  ``steady_start``: index in the pilot where steady state starts
    (reported even when too late to count; None when the pilot shows no plateau at all).
    ``reached``: False when the pilot never reached steady state -- flag it; ``iterations``
    is then ``len(pilot)``.
    """

    iterations: int
    steady_start: int | None
    reached: bool

    def __post_init__(self) -> None:
        if self.iterations < 0:
            raise ValueError(f"iterations must be >= 0, got {self.iterations}")
        if self.steady_start is not None and self.steady_start < 0:
            raise ValueError(f"steady_start must be >= 0 or None, got {self.steady_start}")
        if self.reached and self.steady_start is None:
            raise ValueError("a pilot that reached steady state needs its steady_start")


def warmup_margin(start: int, *, margin: float = MARGIN, min_margin: int = MIN_MARGIN) -> int:
    """Iterations of margin after a steady-state start: ``max(min_margin, ceil(margin * start))``."""
    return max(min_margin, math.ceil(margin * start))


def auto_warmup(pilot, *, margin: float = MARGIN, min_margin: int = MIN_MARGIN,
                seed: int | np.random.SeedSequence | None = 0) -> WarmupChoice:
    """Warmup for later forks from a pilot fork's whole ordered series (see the module docstring).

    ``seed`` drives the detector's bootstrap: equal seeds give equal choices.
    """
    if margin < 0:
        raise ValueError(f"margin must be >= 0, got {margin}")
    if min_margin < 0:
        raise ValueError(f"min_margin must be >= 0, got {min_margin}")
    x = np.asarray(pilot, dtype=np.float64)
    state = detect_steady_state(x, tolerance=TOLERANCE, seed=seed)
    if not state.reached or plateau_drifts(x[state.start:], seed=seed):
        return WarmupChoice(iterations=int(x.size), steady_start=state.start, reached=False)
    start = int(state.start)
    iterations = min(int(x.size), start + warmup_margin(start, margin=margin, min_margin=min_margin))
    return WarmupChoice(iterations=iterations, steady_start=start, reached=True)


def plateau_drifts(plateau, *, tolerance: float = TOLERANCE,
                   seed: int | np.random.SeedSequence | None = 0) -> bool:
    """Whether the two halves of a plateau differ (the detector's test: the 95% bootstrap
    interval of the ratio of their means lies wholly outside ``1 +/- tolerance``)."""
    x = np.asarray(plateau, dtype=np.float64)
    if x.size < 4:
        return False
    half = x.size // 2
    return _differs(x[half:], x[:half], tolerance, np.random.default_rng(seed))
