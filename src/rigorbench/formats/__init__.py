"""Readers of the result files people already have: JMH JSON and console logs, Go, Google
Benchmark JSON, pyperf JSON, pa CSV.

Every reader is a small object behind the :class:`Reader` protocol, listed in the explicit
registry :data:`READERS` (in sniffing order). :func:`read_result_file` reads a file,
gunzips it when its content is gzip (regular files only, at most
:func:`~rigorbench.files.max_input_bytes` after decompression), rejects binary content, and picks the reader from the
content, never from the file name. Readers fail per record with ``path:line: message``
(:class:`~rigorbench.errors.InputError`).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from typing import Protocol, runtime_checkable

from rigorbench.errors import InputError, UserError
from rigorbench.files import read_input
from rigorbench.formats.gbench import GbenchJsonReader
from rigorbench.formats.gobench import GoBenchReader
from rigorbench.formats.jmh_json import JmhJsonReader
from rigorbench.formats.jmh_text import JmhTextReader
from rigorbench.formats.pa_csv import PaCsvReader
from rigorbench.formats.pyperf import PyperfJsonReader
from rigorbench.model import ResultFile

__all__ = ["READERS", "Reader", "read_result_file", "reader_names"]

SNIFF_CHARS = 65536


@runtime_checkable
class Reader(Protocol):
    name: str
    description: str

    def sniff(self, text: str) -> bool:
        """Whether ``text`` (the first few KB of a file) looks like this format."""
        ...

    def parse(self, text: str, path: str) -> ResultFile:
        """All results in ``text``; raises InputError(path, line, message) on a bad record."""
        ...


READERS: dict[str, Reader] = {
    reader.name: reader for reader in (JmhJsonReader(), JmhTextReader(), GoBenchReader(), GbenchJsonReader(), PyperfJsonReader(), PaCsvReader())
}


def reader_names() -> str:
    """``"jmh-json (JMH -rf json), jmh-text (JMH console log), ..."``: for messages and --help."""
    return ", ".join(f"{r.name} ({r.description})" for r in READERS.values())


def read_result_file(path: str | os.PathLike, *, format: str | None = None) -> ResultFile:
    """Read one result file; ``format`` forces a reader by name instead of sniffing."""
    path = os.fspath(path)
    forced = _forced_reader(format)
    data = read_input(path, what="result file")
    text = _decode(path, data)
    reader = forced or _sniff(path, text)
    return replace(reader.parse(text, path), digest=hashlib.sha256(data).hexdigest())


def _forced_reader(format: str | None) -> Reader | None:
    if format is None:
        return None
    if format not in READERS:
        raise UserError(f"unknown format {format!r}; valid formats: {', '.join(READERS)}")
    return READERS[format]


def _decode(path: str, data: bytes) -> str:
    if not data.strip():
        raise InputError(path, None, "empty file")
    if b"\x00" in data:
        raise InputError(path, None, "binary file, not a benchmark result (it contains NUL bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(
            path, None, f"binary file, not a benchmark result (not UTF-8 text at byte {error.start})"
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


def _sniff(path: str, text: str) -> Reader:
    head = text[:SNIFF_CHARS]
    for reader in READERS.values():
        if reader.sniff(head):
            return reader
    raise InputError(path, 1, f"unknown format; rigorbench reads: {reader_names()}")
