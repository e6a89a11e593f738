"""Where a results store is: a SQLite file path, or a PostgreSQL server's URL.

A ``postgresql://`` (or ``postgres://``) URL names a database on a server that a team or
several CI jobs share; anything else is a file path. A URL may hold a password: the store
shows it only as :func:`masked` (``postgresql://user:***@host/db``), in every message,
report and listing, and never stores it. The password is better kept out of the URL
altogether, in ``PGPASSWORD`` or ``~/.pgpass``, which libpq reads by itself.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

SCHEMES = ("postgresql", "postgres")
MASK = "***"


def is_postgres(location: str | os.PathLike) -> bool:
    """Whether ``location`` names a PostgreSQL database rather than a SQLite file."""
    if not isinstance(location, str):
        return False
    scheme, sep, _ = location.partition("://")
    return bool(sep) and scheme.lower() in SCHEMES


def work_dir(location: str | os.PathLike) -> Path:
    """The local folder for what goes next to a store (the build cache, trial output): a
    file's folder, or ``.rigorbench`` in the current folder for a store on a server. Absolute:
    harnesses run cached executables from other folders (a Go test binary runs in its
    package's folder), where a relative path would name nothing."""
    if is_postgres(location):
        return Path(".rigorbench").absolute()
    return Path(location).absolute().parent


def masked(location: str | os.PathLike) -> str:
    """``location`` as it may be shown: a URL's password (in the user part or the query) masked."""
    text = os.fspath(location)
    if not is_postgres(text):
        return text
    try:
        parts = urlsplit(text)
        netloc = parts.netloc
        if parts.password is not None:
            user, _, host = netloc.rpartition("@")
            netloc = f"{user.partition(':')[0]}:{MASK}@{host}"
        query = parts.query
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(key == "password" for key, _ in pairs):
            query = urlencode([(k, MASK if k == "password" else v) for k, v in pairs], safe="*/")
        # not urlunsplit: it drops the "//" of a URL without a host (postgresql:///db?host=/run)
        return f"{parts.scheme}://{netloc}{parts.path}{'?' * bool(query)}{query}{'#' * bool(parts.fragment)}{parts.fragment}"
    except ValueError:  # a URL urllib cannot split (a bad port): show its scheme only
        return f"{text.partition('://')[0]}://{MASK}"


def without_password(location: str | os.PathLike) -> str:
    """``location`` (as given, or :func:`masked`) with the URL's password left out, for a
    command to repeat: libpq then takes the password from ``PGPASSWORD`` or ``~/.pgpass``.
    A file path, or a URL without a password, as it is."""
    text = os.fspath(location)
    if not is_postgres(text):
        return text
    try:
        parts = urlsplit(text)
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        if parts.password is None and all(key != "password" for key, _ in pairs):
            return text
        netloc = parts.netloc
        if parts.password is not None:
            user, _, host = netloc.rpartition("@")
            netloc = f"{user.partition(':')[0]}@{host}"
        query = urlencode([(k, v) for k, v in pairs if k != "password"], safe="*/")
        return f"{parts.scheme}://{netloc}{parts.path}{'?' * bool(query)}{query}{'#' * bool(parts.fragment)}{parts.fragment}"
    except ValueError:
        return masked(text)


def secrets(location: str) -> list[str]:
    """The passwords in a URL (to scrub from a server's or driver's message)."""
    if not is_postgres(location):
        return []
    try:
        parts = urlsplit(location)
        found = [parts.password, unquote(parts.password)] if parts.password else []
        found += [v for k, v in parse_qsl(parts.query) if k == "password" and v]
    except ValueError:
        return []
    return found


def scrubbed(text: str, location: str, *, foreign: bool = True) -> str:
    """``text`` with the URL ``location`` shown :func:`masked` and its password masked where
    it stands as a password: after ``user:`` in a URL (``:SECRET@``) or as a ``password=``
    value. ``foreign`` text (a server's or the driver's message) also has the password
    masked where it stands alone as a word, unless the URL shows that word anyway (as its
    user, host or database: ``postgresql://postgres:postgres@host/postgres`` keeps its
    ``postgres``); never inside a longer word (``postgresql``). rigorbench's own messages are
    not foreign: a password ``postgres`` leaves their ``rigorbench[postgres]`` alone."""
    shown = masked(location)
    text = text.replace(location, shown)
    for secret in dict.fromkeys(secrets(location)):
        quoted = re.escape(secret)
        text = re.sub(rf"(?<=:){quoted}(?=@)", MASK, text)
        text = re.sub(rf"(\bpassword\s*=\s*['\"]?){quoted}", rf"\g<1>{MASK}", text)
        if foreign and not re.search(rf"(?<![\w-]){quoted}(?![\w-])", shown):
            text = re.sub(rf"(?<![\w-]){quoted}(?![\w-])", MASK, text)
    return text
