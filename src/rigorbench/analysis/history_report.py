"""What the HTML history shows (issue 17), computed once: every selected series over its
commits with each point's own CI, the change points of E-divisive means
(:mod:`rigorbench.stats.changepoints`) and the levels of the segments between them,
regressions first, and the repository's web address for links to the commits.

Nothing here draws or writes HTML: ``report.history_plots`` and ``report.history_html`` lay
these values out. Commit links are made only to an http(s) address, to commits named by a
hexadecimal id; the address of a GitHub or GitLab remote is derived from its URL, without
the user name and password an https remote may carry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence
from urllib.parse import quote, urlsplit

from rigorbench.analysis.history import (
    CI_CONFIDENCE, Selection, SeriesChanges, StoredSeries, detect_changes, machine_kinds, point_errors,
)
from rigorbench.stats.changepoints import MAX_P, MIN_SIZE, WINDOW, Level, segment_levels

_SHA = re.compile(r"[0-9a-fA-F]{7,64}")
_SCP = re.compile(r"(?:[^@/:]+@)?(?P<host>[^/:]+):(?P<path>[^/].*)")   # git@github.com:owner/repo.git
_HOST = re.compile(r"[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?")
_PATH = re.compile(r"[A-Za-z0-9._~-]+(?:/[A-Za-z0-9._~-]+)*")


@dataclass(frozen=True)
class Segment:
    """Points ``start`` (inclusive) to ``end`` (exclusive) of a series and their level."""

    start: int
    end: int
    level: Level


@dataclass(frozen=True)
class SeriesHistory:
    """One series as the page shows it; ``anchor`` is its element id."""

    stored: StoredSeries
    changes: SeriesChanges
    segments: tuple[Segment, ...]
    anchor: str

    @property
    def regression(self) -> bool:
        return self.changes.newest_is_regression


@dataclass(frozen=True)
class HistoryPage:
    store: str
    selection: Selection
    series: tuple[SeriesHistory, ...]   # regressions first, then other changed series, then the rest
    total: int                          # points in the store, before the selection
    repo_url: str | None                # http(s) only; None: commits are not links
    mixed_machines: dict
    max_p: float = MAX_P
    min_size: int = MIN_SIZE
    window: int = WINDOW

    def commit_link(self, commit: str) -> str | None:
        """``{repo_url}/commit/{commit}`` for a commit named by its hexadecimal id."""
        if self.repo_url is None or not _SHA.fullmatch(commit):
            return None
        return f"{self.repo_url}/commit/{quote(commit)}"


def web_url(url: str | None) -> str | None:
    """An http(s) address to link commits to: ``url`` itself when it is http(s), or the web
    address of a GitHub or GitLab remote given as https, ssh or ``git@host:owner/repo``;
    None for anything else (``javascript:``, file paths, other hosts' remotes)."""
    if not url:
        return None
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme in ("http", "https") and parts.hostname:
        return _address(parts.scheme, parts.hostname, parts.port, parts.path)
    if parts.scheme in ("ssh", "git+ssh") and parts.hostname and _forge(parts.hostname):
        return _address("https", parts.hostname, None, parts.path)
    scp = _SCP.fullmatch(url)
    if not parts.scheme.startswith(("http", "ssh")) and scp and _forge(scp["host"]):
        return _address("https", scp["host"], None, scp["path"])
    return None


def remote_web_url(remote: str | None) -> str | None:
    """The web address of a git remote, when it is a GitHub or GitLab one."""
    parts = urlsplit(remote or "")
    if parts.scheme in ("http", "https") and not _forge(parts.hostname or ""):
        return None
    return web_url(remote)


def _forge(host: str) -> bool:
    host = host.lower()
    return host in ("github.com", "gitlab.com") or host.startswith(("github.", "gitlab."))


def _address(scheme: str, host: str, port: int | None, path: str) -> str | None:
    """``scheme://host[:port]/path`` without credentials, query or ``.git``; None when the
    path is not a plain repository path."""
    if not _HOST.fullmatch(host):
        return None
    path = path.strip("/")
    path = path[:-4] if path.endswith(".git") else path
    if path and not _PATH.fullmatch(path):
        return None
    where = f"{host}:{port}" if port else host
    return f"{scheme}://{where}/{path}" if path else f"{scheme}://{where}"


def _segments(s: StoredSeries, changes: SeriesChanges, confidence: float) -> tuple[Segment, ...]:
    history = changes.series
    starts = [c.index for c in changes.changes]
    levels = segment_levels(history.values, point_errors(history, confidence), starts)
    bounds = [0, *starts, len(s.points)]
    return tuple(Segment(a, b, level) for a, b, level in zip(bounds, bounds[1:], levels))


def history_page(store: str, selection: Selection, series: list[StoredSeries], total: int,
                 repo_url: str | None = None) -> HistoryPage:
    """The page of ``series`` (from :func:`rigorbench.analysis.history.stored_series`) with
    their change points; ``repo_url`` is used for links only when it is http(s)."""
    found = detect_changes([s.as_history() for s in series], (store,))
    pages = [SeriesHistory(s, c, _segments(s, c, CI_CONFIDENCE), f"series-{number}")
             for number, (s, c) in enumerate(zip(series, found.series), 1)]
    pages.sort(key=lambda p: (not p.regression, not p.changes.changes))   # stable: store order within
    return HistoryPage(store, selection, tuple(pages), total, web_url(repo_url), machine_kinds(series),
                       found.max_p, found.min_size, found.window)


def recorded_project(store_path: str, series: Sequence[StoredSeries]) -> Path | None:
    """The project directory the newest recorded run of ``series``' points measured, when
    it is still there (its git remote gives the commits' links)."""
    from rigorbench.store import ResultStore

    run_ids = sorted({p.run_id for s in series for p in s.points if p.run_id is not None}, reverse=True)
    if not run_ids:
        return None
    with ResultStore.read(store_path) as store:
        for run_id in run_ids:
            project = Path(store.run(run_id).project)
            if project.is_dir():
                return project
    return None
