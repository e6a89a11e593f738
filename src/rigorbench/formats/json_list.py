"""The elements of a JSON document's top-level list (a JMH JSON result file), decoded one
at a time from text that comes in chunks, so that a file of any size is read with the memory
of one element. Errors are :class:`~rigorbench.errors.InputError` naming the file's line (and
column, for a syntax error) and the benchmark (element) a truncated file ends in.
"""

from __future__ import annotations

import json
import re
from typing import Iterator

from rigorbench.errors import InputError
from rigorbench.formats.collect import JSON_DECODER

_WHITESPACE = re.compile(r"[ \t\n\r]*")


class _Buffer:
    """The text of a file read chunk by chunk: what is not yet consumed, and the line and
    column of the first unconsumed character (``start``), so that errors name the file's
    lines. Consumed text is cut off only when more is read (one copy per chunk, not one per
    element)."""

    def __init__(self, chunks: Iterator[str]) -> None:
        self._chunks = chunks
        self.text = ""
        self.start = 0
        self.line = 1            # the line text[start] is on
        self.column = 0          # characters before text[start] on its line
        self.eof = False

    def more(self) -> bool:
        """Append at least as much text as is unconsumed (so that decoding an element again
        from its start costs, in all, no more than twice the element); False at the end."""
        self.text, self.start = self.text[self.start:], 0
        wanted, parts = max(len(self.text), 1), []
        while wanted > 0:
            chunk = next(self._chunks, None)
            if chunk is None:
                self.eof = True
                break
            parts.append(chunk)
            wanted -= len(chunk)
        self.text += "".join(parts)
        return bool(parts)

    def skip_whitespace(self, pos: int) -> int:
        """The first non-whitespace position from ``pos`` (reading on); len(text) at the end."""
        pos = _WHITESPACE.match(self.text, pos).end()
        while pos >= len(self.text) and not self.eof:
            self.consume(pos)
            self.more()
            pos = _WHITESPACE.match(self.text, 0).end()
        return pos

    def consume(self, pos: int) -> None:
        """Everything before ``pos`` is decoded."""
        newlines = self.text.count("\n", self.start, pos)
        if newlines:
            self.line += newlines
            self.column = pos - self.text.rfind("\n", self.start, pos) - 1
        else:
            self.column += pos - self.start
        self.start = pos

    def line_at(self, pos: int) -> int:
        return self.line + self.text.count("\n", self.start, pos)

    def column_at(self, pos: int) -> int:
        """The 1-based column of ``pos`` on its line."""
        newline = self.text.rfind("\n", self.start, pos)
        return pos - newline if newline >= 0 else self.column + pos - self.start + 1

    def last_line(self) -> int:
        """The file's last line (the rest of it read, not kept)."""
        return self.line_at(len(self.text)) + sum(chunk.count("\n") for chunk in self._chunks)


# How far from the end of the buffer a decoding error may come from the buffer's end rather
# than from the file: a literal, number or \\uXXXX escape cut in two (at most 9 characters:
# "-Infinity"); an unterminated string is reported where it starts.
_CUT_MARGIN = 16


def list_elements(chunks: Iterator[str], path: str) -> Iterator[tuple[int, object]]:
    """Each element of the top-level list, with the 1-based line where it starts.

    The text comes in chunks and each element is decoded as soon as it is whole, with the
    standard library's decoder (``raw_decode`` from the element's start; an element cut by
    the end of the buffer is decoded again with more text), so that only one element's text
    and objects are held at a time. Written here rather than with a streaming parser (ijson):
    errors name the line an element starts at and the line and column of a syntax error,
    which ijson's events do not carry, and the decoder is the one the rest of the readers use
    (numbers beyond float range keep their text)."""
    buffer = _Buffer(chunks)
    pos = buffer.skip_whitespace(0)
    if pos >= len(buffer.text) or buffer.text[pos] != "[":
        raise InputError(path, buffer.line_at(pos), "not a JMH JSON result: expected a list of benchmarks")
    pos, entry_line = pos + 1, None
    while True:
        pos = buffer.skip_whitespace(pos)
        if pos >= len(buffer.text):
            raise InputError(path, buffer.last_line(), _truncated(entry_line))
        if buffer.text[pos] == "]":
            break
        if entry_line is not None:
            if buffer.text[pos] != ",":
                raise InputError(path, buffer.line_at(pos), "invalid JSON: expected ',' or ']' between benchmarks")
            pos = buffer.skip_whitespace(pos + 1)
        buffer.consume(pos)
        entry_line = buffer.line
        entry, pos = _decode_entry(buffer, path, entry_line)
        yield entry_line, entry
    pos = buffer.skip_whitespace(pos + 1)
    if pos < len(buffer.text):
        raise InputError(path, buffer.line_at(pos), "invalid JSON: unexpected text after the list of benchmarks")


def _decode_entry(buffer: _Buffer, path: str, entry_line: int) -> tuple[object, int]:
    """The element at ``buffer.start`` and the position after it, reading on as needed."""
    while True:
        text, start = buffer.text, buffer.start
        try:
            entry, end = JSON_DECODER.raw_decode(text, start)
        except RecursionError:
            raise InputError(path, entry_line, "invalid JSON: nested too deeply") from None
        except json.JSONDecodeError as error:
            unterminated = error.msg.startswith("Unterminated string")  # it runs to the end of the text
            if (unterminated or error.pos >= len(text) - _CUT_MARGIN) and not buffer.eof:
                buffer.more()
                continue
            if unterminated or error.pos >= len(text.rstrip()):  # as the gbench and pyperf readers
                raise InputError(path, buffer.last_line(), _truncated(entry_line)) from None
            raise InputError(path, buffer.line_at(error.pos),
                             f"invalid JSON: {error.msg} (column {buffer.column_at(error.pos)})") from None
        if end < len(text) or buffer.eof:
            return entry, end
        buffer.more()  # a number at the end may go on in the next chunk: decode it again


def _truncated(entry_line: int | None) -> str:
    where = f"inside the benchmark that starts at line {entry_line}" if entry_line else "before any benchmark"
    return f"truncated JSON: the file ends {where}"
