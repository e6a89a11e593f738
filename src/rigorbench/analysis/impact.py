"""What fixing a lint finding did to its benchmark's score: ``lint --measure``'s verdicts.

Costa et al. 2019 (RQ2, section 5) ran each benchmark before and after fixing its bad
practice and asked whether the results changed. ``lint --measure`` does the same as one A/B
run (original vs fixed, RMIT trials) and reads each finding's verdict from its benchmark's
comparison, whose verdict already speaks of slower and faster in the user's sense (the
ratio's interval against the threshold, ARCHITECTURE.md):

- ``confirmed``: the fixed variant changed the way the rule predicts (``Rule.fix_effect``;
  for RETU, VOID, LOOP and FINAL it is *slower*: the fix makes the benchmark do work the JIT
  had removed, merged or folded, so the original's score was too good);
- ``no_effect``: the two are equivalent within the threshold (the finding does no
  measurable harm here);
- ``inconclusive``: neither (the interval is too wide), a change the other way than
  predicted (then the finding is not confirmed, and the words say so), or @Param cases that
  disagree;
- ``not_measured``: the finding has no fix that was applied, no predicted effect, no
  benchmark, or no result (:func:`not_measured` with the reason).
"""

from __future__ import annotations

from collections.abc import Sequence

from rigorbench.analysis.compare import Comparison
from rigorbench.model import Impact, ImpactCase
from rigorbench.stats.decision import Verdict


# Fixable rules whose fix predicts no change of the score, and why.
UNMEASURED_FIXES = {
    "FORK": "rigorbench runs every benchmark in forks of its own (-f), whatever @Fork says, so the fix "
            "changes nothing it can measure",
}


def unmeasured_reason(rule) -> str:
    """Why a fixable rule without a predicted effect (``Rule.fix_effect``) is not measured."""
    return UNMEASURED_FIXES.get(rule.id, f"the fix of {rule.id} predicts no change of the score")


def not_measured(reason: str) -> Impact:
    return Impact("not_measured", reason)


def case_verdict(change: str, predicted: str) -> str:
    """One case's verdict: the comparison's change of the fixed variant against the rule's."""
    if change == Verdict.UNCHANGED.value:
        return "no_effect"
    return "confirmed" if change == predicted else "inconclusive"


def finding_impact(benchmark: str, predicted: str, comparisons: Sequence[Comparison], shared: int = 1) -> Impact:
    """The impact of a finding in ``benchmark`` from the comparisons (original as baseline,
    fixed as contender) of its benchmark's cases on the primary metric."""
    if not comparisons:
        return Impact("not_measured", "no result for this benchmark in both variants (it failed or did not run)",
                      benchmark, predicted=predicted, shared=shared)
    cases = tuple(ImpactCase(tuple(c.case.params), c.verdict.value, c.ratio.estimate, c.ratio.low, c.ratio.high)
                  for c in comparisons)
    kinds = sorted({case_verdict(case.change, predicted) for case in cases})
    verdict = kinds[0] if len(kinds) == 1 else "inconclusive"
    reason = f"its {len(cases)} cases disagree ({', '.join(kinds)})" if len(kinds) > 1 else ""
    metric = comparisons[0].metric
    return Impact(verdict, reason, comparisons[0].case.name, metric.unit, metric.higher_is_better, predicted,
                  cases, shared)
