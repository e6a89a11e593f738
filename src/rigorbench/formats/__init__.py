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

import codecs
import hashlib
import itertools
import os
from dataclasses import replace
from typing import Iterator, Protocol, runtime_checkable

from rigorbench.errors import InputError, UserError
from rigorbench.files import input_chunks, read_input
from rigorbench.formats.gbench import GbenchJsonReader
from rigorbench.formats.gobench import GoBenchReader
from rigorbench.formats.jmh_json import JmhJsonReader, JmhJsonStream
from rigorbench.formats.jmh_text import JmhTextReader
from rigorbench.formats.pa_csv import PaCsvReader
from rigorbench.formats.pyperf import PyperfJsonReader
from rigorbench.model import ResultFile

__all__ = ["READERS", "Reader", "read_result_file", "reader_names", "stream_result_file", "count_benchmarks"]

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


def stream_result_file(path: str | os.PathLike, *, format: str | None = None) -> JmhJsonStream | None:
    """A JMH JSON file as a stream of benchmarks (:class:`JmhJsonStream`), read a chunk at a
    time with the checks of :func:`read_result_file`; None for a file of another format
    (read it whole)."""
    path = os.fspath(path)
    forced = _forced_reader(format)
    if forced is not None and forced.name != JmhJsonReader.name:
        return None
    digest = hashlib.sha256()
    texts = _texts(path, _hashed(input_chunks(path, what="result file"), digest))
    head = _head(path, texts)
    if forced is None and _sniff(path, head).name != JmhJsonReader.name:
        return None
    return JmhJsonStream(path, itertools.chain((head,), texts), digest.hexdigest)


def count_benchmarks(path: str | os.PathLike) -> int:
    """The entries of a JMH JSON file, counted as its ``"primaryMetric"`` keys (every entry has
    one) without decoding it: a cheap count before reading it, exact for what JMH writes."""
    key, count, tail = b'"primaryMetric"', 0, b""
    for chunk in input_chunks(os.fspath(path), what="result file"):
        data = tail + chunk
        count += data.count(key)
        tail = data[-(len(key) - 1):]          # a key cut by the chunk's end is counted with the next
    return count


def _hashed(chunks: Iterator[bytes], digest) -> Iterator[bytes]:
    for chunk in chunks:
        digest.update(chunk)
        yield chunk


def _texts(path: str, chunks: Iterator[bytes]) -> Iterator[str]:
    """The chunks as text, with the checks of :func:`_decode` (NUL bytes, UTF-8, a BOM)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset, first = 0, True
    for data in chunks:
        if b"\x00" in data:
            raise InputError(path, None, "binary file, not a benchmark result (it contains NUL bytes)")
        pending = len(decoder.getstate()[0])
        try:
            text = decoder.decode(data)
        except UnicodeDecodeError as error:
            raise InputError(path, None, "binary file, not a benchmark result "
                             f"(not UTF-8 text at byte {offset - pending + error.start})") from None
        offset += len(data)
        if first and text:
            text, first = (text[1:] if text.startswith("\ufeff") else text), False
        yield text
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as error:
        raise InputError(path, None, f"binary file, not a benchmark result (not UTF-8 text at byte {offset - len(error.object) + error.start})") from None


def _head(path: str, texts: Iterator[str]) -> str:
    """The first :data:`SNIFF_CHARS` characters or more (all of a shorter file)."""
    parts, size = [], 0
    for text in texts:
        parts.append(text)
        size += len(text)
        if size >= SNIFF_CHARS:
            break
    head = "".join(parts)
    if size < SNIFF_CHARS and not head.strip(" \t\n\r\x0b\x0c"):
        raise InputError(path, None, "empty file")
    return head


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
