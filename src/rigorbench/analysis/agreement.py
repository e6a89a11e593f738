"""When the ``p`` column and the verdict beside it seem to disagree, say why.

The verdict comes from the decision rule (``--test``): by default the bootstrap interval of
the ratio against the threshold (Kalibera & Jones 2012), under ``--test wilcoxon`` the rank
test's p together with Cliff's delta (Costa et al.). The p shown is always the Mann-Whitney U
test's over all values. They answer different questions, so a significant p beside
``unchanged`` or ``inconclusive``, or a p above alpha beside ``slower``/``faster``, is no
contradiction; it is left unexplained nowhere. The note is data (``p_disagrees``, severity
info) with one message per kind, so that the text output lists it once for all its rows.
"""

from __future__ import annotations

from rigorbench.model import Diagnostic
from rigorbench.stats.decision import Verdict

CODE = "p_disagrees"
_DECIDED = (Verdict.SLOWER, Verdict.FASTER)


def p_disagreement(p_value: float, verdict: Verdict, settings, floor: str | None = None) -> Diagnostic | None:
    """The note for one comparison with (adjusted) ``p_value`` and ``verdict`` under
    ``settings`` (alpha, the rule, its threshold and level), or None when they agree.
    ``floor``: the metric's absolute floor (``1 B/op``) when it, not the rule, set the verdict."""
    if p_value != p_value:   # NaN: no rank test, nothing to disagree with
        return None
    significant = p_value <= settings.alpha
    alpha = f"{settings.alpha:g}"
    if floor is not None:
        if significant:
            return _note(f"p <= {alpha} but {verdict.value}: a difference below {floor} is not a change of this "
                         "metric (the verdict follows that floor, not the rank test's p)")
        return None
    if settings.test == "wilcoxon":
        if significant and verdict not in _DECIDED:
            return _note(f"p <= {alpha} but {verdict.value}: --test wilcoxon also needs |Cliff's delta| >= "
                         f"{settings.min_delta:g}, and the effect is smaller")
        return None
    level, threshold = f"{settings.confidence:.0%}", f"{settings.threshold * 100:g}%"
    if significant and verdict == Verdict.UNCHANGED:
        return _note(f"p <= {alpha} but unchanged: the verdict follows the {level} interval of the ratio, which lies "
                     f"within +-{threshold} (a difference the rank test detects, too small to matter)")
    if significant and verdict == Verdict.INCONCLUSIVE:
        return _note(f"p <= {alpha} but inconclusive: the verdict follows the {level} interval of the ratio, which "
                     f"includes 1 or a change smaller than {threshold}, not the rank test's p")
    if not significant and verdict in _DECIDED:
        return _note(f"p > {alpha} but {verdict.value}: the verdict follows the {level} interval of the ratio, which "
                     f"excludes 1; p is the rank test's over all values, which can miss a shift of the {settings.statistic}")
    return None


def _note(message: str) -> Diagnostic:
    return Diagnostic(CODE, message, "info",
                      "the p column is the Mann-Whitney U test; the verdict is the decision rule's (--test)")
