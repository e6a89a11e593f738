"""``python -m rigorbench``."""

from rigorbench.cli import entry_point

entry_point()
