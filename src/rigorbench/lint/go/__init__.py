"""Go benchmark rules (``GO-*``) for ``func BenchmarkXxx(b *testing.B)`` in ``_test.go`` files.

Sources: the Go testing package documentation (B.Loop, B.ResetTimer, B.StopTimer and the
Benchmarks section), the Go 1.24 release notes (testing.B.Loop), and the Go issues on the
cost of StopTimer/StartTimer (golang/go#20875, golang/go#27217).
"""

from __future__ import annotations

from rigorbench.lint.base import Rule
from rigorbench.lint.go import bloop, results, setup, timers


def go_rules() -> list[Rule]:
    """The Go rules in registry order."""
    return [
        Rule(results.ID, "warning", results.TITLE, results.EXPLANATION, results.REFERENCE, False,
             results.check, "go"),
        Rule(setup.ID, "warning", setup.TITLE, setup.EXPLANATION, setup.REFERENCE, True, setup.check, "go"),
        Rule("GO-TIMER", "warning", timers.TIMER_TITLE, timers.TIMER_EXPLANATION, timers.TIMER_REFERENCE,
             False, timers.check_timer, "go"),
        Rule("GO-BN", "error", timers.BN_TITLE, timers.BN_EXPLANATION, timers.BN_REFERENCE, False,
             timers.check_bn, "go"),
        Rule("GO-NOLOOP", "error", timers.NOLOOP_TITLE, timers.NOLOOP_EXPLANATION,
             timers.NOLOOP_REFERENCE, False, timers.check_noloop, "go"),
        Rule(bloop.ID, "info", bloop.TITLE, bloop.EXPLANATION, bloop.REFERENCE, True, bloop.check, "go"),
    ]
