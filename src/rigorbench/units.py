"""Units in one place: durations (and, as they move here, time per op, throughput, bytes)."""

from __future__ import annotations


def format_duration(seconds: float) -> str:
    """``m:ss`` (``h:mm:ss`` from an hour), rounded to the second."""
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
