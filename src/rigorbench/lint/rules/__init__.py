"""The rule registry: the five bad practices of Costa et al. 2019 first, then ours.

Order: RETU, LOOP, FINAL, INVO, FORK (Costa et al. 2019, Table 1), then TIMER, SLEEP,
PRINT, VOID, OPINV, SHARED, PARAMW, PARAMU, STALE; then the Go rules (``GO-*``, :mod:`rigorbench.lint.go`).
"""

from __future__ import annotations

from rigorbench.lint.base import Rule
from rigorbench.lint.go import go_rules
from rigorbench.lint.rules import (calls, config, final, loop, param_read, param_write, retu,
                                   shared, stale, void)


def _registry() -> dict[str, Rule]:
    rules = [
        Rule(retu.ID, "error", retu.TITLE, retu.EXPLANATION, retu.REFERENCE, True, retu.check,
             fix_effect="slower"),
        Rule(loop.ID, "warning", loop.TITLE, loop.EXPLANATION, loop.REFERENCE, True, loop.check,
             fix_effect="slower"),
        Rule(final.ID, "warning", final.TITLE, final.EXPLANATION, final.REFERENCE, True,
             final.check, fix_effect="slower"),
        Rule("INVO", "warning", config.INVO_TITLE, config.INVO_EXPLANATION, config.INVO_REFERENCE,
             False, config.check_invo),
        Rule("FORK", "error", config.FORK_TITLE, config.FORK_EXPLANATION, config.FORK_REFERENCE,
             True, config.check_fork),
        Rule("TIMER", "warning", calls.TIMER_TITLE, calls.TIMER_EXPLANATION,
             calls.TIMER_REFERENCE, False, calls.check_timer),
        Rule("SLEEP", "warning", calls.SLEEP_TITLE, calls.SLEEP_EXPLANATION,
             calls.SLEEP_REFERENCE, False, calls.check_sleep),
        Rule("PRINT", "warning", calls.PRINT_TITLE, calls.PRINT_EXPLANATION,
             calls.PRINT_REFERENCE, False, calls.check_print),
        Rule(void.ID, "warning", void.TITLE, void.EXPLANATION, void.REFERENCE, True, void.check,
             fix_effect="slower"),
        Rule("OPINV", "warning", config.OPINV_TITLE, config.OPINV_EXPLANATION,
             config.OPINV_REFERENCE, False, config.check_opinv),
        Rule(shared.ID, "warning", shared.TITLE, shared.EXPLANATION, shared.REFERENCE, False,
             shared.check),
        Rule(param_write.ID, "warning", param_write.TITLE, param_write.EXPLANATION,
             param_write.REFERENCE, False, param_write.check),
        Rule(param_read.ID, "warning", param_read.TITLE, param_read.EXPLANATION,
             param_read.REFERENCE, False, param_read.check),
        Rule(stale.ID, "warning", stale.TITLE, stale.EXPLANATION, stale.REFERENCE, False, stale.check),
        *go_rules(),
    ]
    return {rule.id: rule for rule in rules}


RULES: dict[str, Rule] = _registry()
