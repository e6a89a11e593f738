"""The conditions ``--fail-on`` accepts for a comparison (compare, ab, run, rigorbench.toml).

Light on purpose: the CLI checks the option while it parses, before anything heavy loads.
"""

from __future__ import annotations

from rigorbench.errors import UserError

FAIL_CONDITIONS = ("regression", "change", "missing", "never")


def parse_fail_on(text: str) -> frozenset[str]:
    """``"regression,missing"`` -> ``{"regression", "missing"}`` (``never`` adds nothing); an
    unknown name is an error that lists the allowed ones."""
    conditions = {part.strip() for part in str(text).split(",") if part.strip()}
    unknown = sorted(conditions - set(FAIL_CONDITIONS))
    if unknown or not conditions:
        named = ", ".join(map(repr, unknown)) if unknown else repr(text)
        raise UserError(
            f"--fail-on: unknown condition {named}; allowed values are {', '.join(FAIL_CONDITIONS)} "
            "(several separated by commas, e.g. regression,missing)"
        )
    return frozenset(conditions - {"never"})
