"""Command-line interface (placeholder until the CLI lands)."""

import sys


def entry_point() -> None:
    sys.exit(0)
