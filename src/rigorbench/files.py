"""Files in and out: reading inputs safely (regular files only, bounded size, gzip with a
limit on the decompressed size) and writing a set of output files, all or a clear error
(export, report --data-dir)."""

from __future__ import annotations

import gzip
import os
import re
import stat
import zlib
from pathlib import Path
from typing import Iterator, Mapping

from rigorbench.errors import InputError, UserError


def write_files(directory: Path, files: Mapping[Path, str]) -> None:
    """Create ``directory`` and write every file in it; an OSError becomes one clear line."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for path, text in files.items():
            path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UserError(f"{directory}: cannot write: {error.strerror}") from None


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write one file (its directory created); the written path, absolute. An OSError
    becomes one clear line naming the file."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UserError(f"{path}: cannot write: {error.strerror}") from None
    return target.resolve()


_UNSAFE = re.compile(r"[^A-Za-z0-9._=-]+")


def safe_name(text: str, limit: int = 80, fallback: str = "unnamed") -> str:
    """``text`` as a file-name part: runs of other characters than letters, digits and
    ``. _ = -`` become ``_``, at most ``limit`` characters, never empty, never hidden."""
    return _UNSAFE.sub("_", str(text))[:limit].strip("._") or fallback


# Reading input files: only regular files, and never more than a bounded number of bytes.

MAX_INPUT_BYTES = 1 << 30  # 1 GiB, after decompression; RIGORBENCH_MAX_INPUT_BYTES overrides
MAX_INPUT_ENV = "RIGORBENCH_MAX_INPUT_BYTES"
_GZIP_MAGIC = b"\x1f\x8b"
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def max_input_bytes() -> int:
    """The largest input read whole: ``RIGORBENCH_MAX_INPUT_BYTES`` or :data:`MAX_INPUT_BYTES`."""
    text = os.environ.get(MAX_INPUT_ENV, "").strip()
    if not text:
        return MAX_INPUT_BYTES
    if not text.isdigit() or len(text) > 18 or int(text) < 1:
        raise UserError(f"{MAX_INPUT_ENV}={text[:40]!r} is not a positive number of bytes")
    return int(text)


def check_regular_file(path: str, what: str = "regular file") -> None:
    """Refuse what is not a regular file *before* opening it: opening a FIFO blocks."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        kind = "a dangling symbolic link" if os.path.islink(path) else None
        raise InputError(path, None, f"no such file{f' ({kind})' if kind else ''}") from None
    except OSError as error:
        raise InputError(path, None, f"cannot read: {_reason(error)}") from None
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise InputError(path, None, f"is {kind}, not a {what}")


def read_input(path: str, *, what: str = "regular file", gunzip: bool = True) -> bytes:
    """The bytes of the regular file ``path``, gunzipped when its content is gzip, at most
    :func:`max_input_bytes` of them (counted after decompression: a gzip bomb stops early)."""
    limit = max_input_bytes()
    check_regular_file(path, what)
    try:
        with open(path, "rb") as handle:
            head = handle.read(2)
            handle.seek(0)
            if gunzip and head == _GZIP_MAGIC:
                return _gunzip(path, handle, limit)
            data = handle.read(limit + 1)
    except OSError as error:
        raise InputError(path, None, f"cannot read: {_reason(error)}") from None
    if len(data) > limit:
        raise _too_large(path, limit, "")
    return data


CHUNK_BYTES = 1 << 20


def input_chunks(path: str, *, what: str = "regular file", chunk_bytes: int | None = None) -> Iterator[bytes]:
    """The bytes of the regular file ``path`` as :func:`read_input` reads them (gunzipped when
    gzip, the same limit, the same errors), a chunk of ``chunk_bytes`` (default
    :data:`CHUNK_BYTES`) at a time, so that a reader can stream a file larger than the memory
    it may use."""
    limit, chunk_bytes = max_input_bytes(), chunk_bytes or CHUNK_BYTES
    check_regular_file(path, what)
    try:
        handle = open(path, "rb")
    except OSError as error:
        raise InputError(path, None, f"cannot read: {_reason(error)}") from None
    with handle:
        gzipped = _read(path, handle, 2) == _GZIP_MAGIC
        handle.seek(0)
        source = gzip.GzipFile(fileobj=handle, mode="rb") if gzipped else handle
        total = 0
        while True:
            chunk = _read(path, source, chunk_bytes, gzipped)
            if not chunk:
                return
            total += len(chunk)
            if total > limit:
                raise _too_large(path, limit, " when decompressed" if gzipped else "")
            yield chunk


def _read(path: str, source, size: int, gzipped: bool = False) -> bytes:
    try:
        return source.read(size)
    except (OSError, EOFError, zlib.error) as error:
        if gzipped:  # as _gunzip says it
            raise InputError(path, None, f"corrupt gzip data: {error}") from None
        raise InputError(path, None, f"cannot read: {_reason(error)}") from None


def _gunzip(path: str, handle, limit: int) -> bytes:
    try:
        with gzip.GzipFile(fileobj=handle, mode="rb") as unzipped:
            data = unzipped.read(limit + 1)
    except (OSError, EOFError, zlib.error) as error:
        raise InputError(path, None, f"corrupt gzip data: {error}") from None
    if len(data) > limit:
        raise _too_large(path, limit, " when decompressed")
    return data


def _too_large(path: str, limit: int, how: str) -> InputError:
    return InputError(
        path, None, f"larger than {limit} bytes{how}; set {MAX_INPUT_ENV} to read bigger inputs"
    )


def _reason(error: OSError) -> str:
    if isinstance(error, PermissionError):
        return "permission denied"
    return error.strerror or str(error)
