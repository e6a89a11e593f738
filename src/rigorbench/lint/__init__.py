"""``rigorbench lint``: find benchmark bad practices in Java (JMH) and Go source; fix the mechanical ones.

The five practices and their static rules come from Costa et al., "What's wrong with my
benchmark results? Studying bad practices in JMH benchmarks" (sections 2.2, 4.1, 5.3); the
JMH samples (08 dead code, 09 blackholes, 10 constant fold, 11 loops, 12 forking,
34 safe looping, 07/38 invocation-level fixtures) give the right and wrong variants.
The Go rules (``GO-*``, :mod:`rigorbench.lint.go`) check ``_test.go`` benchmarks against
the Go testing package documentation and the Go 1.24 release notes (testing.B.Loop).
"""

from __future__ import annotations

from rigorbench.lint.base import Rule
from rigorbench.lint.engine import LintResult, lint_paths
from rigorbench.lint.fix import FileFix, fix_findings
from rigorbench.lint.rules import RULES

__all__ = ["RULES", "FileFix", "LintResult", "Rule", "fix_findings", "lint_paths"]
