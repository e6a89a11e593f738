"""What ``rigorbench store check|recover|copy`` found, as lines of text. Stored text is
untrusted: every message is one line without control characters."""

from __future__ import annotations

from rigorbench.store.location import is_postgres, masked


def render_check(result) -> str:
    """A :class:`rigorbench.store.check.StoreCheck`: sound, or each problem and how to recover."""
    head = f"{result.path}: schema {result.schema}, {result.runs} runs, {result.samples} samples"
    if is_postgres(result.path):
        head += " (PostgreSQL: rigorbench's own checks; the server keeps its pages and types)"
    if result.sound:
        return f"{head}: sound\n"
    lines = [f"{head}: damaged, {len(result.problems)} problems"]
    lines += [f"  {one_line(problem)}" for problem in result.problems]
    lines.append(f"copy every readable run into a new store with: rigorbench store recover {result.path} NEW")
    return "\n".join(lines) + "\n"


def render_recovery(new: str, recovery) -> str:
    """A :class:`rigorbench.store.check.Recovery` into ``new``: the runs kept and lost, and why."""
    recovered = ", ".join(map(str, recovery.recovered)) or "none"
    lines = [f"{new}: recovered {len(recovery.recovered)} runs ({recovered}), lost {len(recovery.lost)}"]
    lines += [f"  run {run_id} lost: {one_line(why.removeprefix(f'run {run_id}: '))}" for run_id, why in recovery.lost]
    if recovery.points_lost:
        lines.append(f"  history lost: {one_line(recovery.points_lost)}")
    elif recovery.points:
        lines.append(f"  history: {recovery.points} points copied")
    return "\n".join(lines) + "\n"


def render_copy(source: str, target: str, copied) -> str:
    """What ``copy_store`` copied from ``source`` into ``target`` (passwords masked)."""
    return one_line(f"{masked(target)}: copied {len(copied.runs)} runs ({copied.samples} samples) and "
                    f"{copied.points} history points from {masked(source)}") + "\n"


def one_line(text: str) -> str:
    """Stored text is untrusted: no control characters reach the terminal."""
    return "".join(ch if ch.isprintable() else "?" for ch in " ".join(str(text).split()))
