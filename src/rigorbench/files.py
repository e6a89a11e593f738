"""Writing a set of output files, all or a clear error (export, report --data-dir)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Mapping

from rigorbench.errors import UserError


def write_files(directory: Path, files: Mapping[Path, str]) -> None:
    """Create ``directory`` and write every file in it; an OSError becomes one clear line."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for path, text in files.items():
            path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UserError(f"{directory}: cannot write: {error.strerror}") from None


_UNSAFE = re.compile(r"[^A-Za-z0-9._=-]+")


def safe_name(text: str, limit: int = 80, fallback: str = "unnamed") -> str:
    """``text`` as a file-name part: runs of other characters than letters, digits and
    ``. _ = -`` become ``_``, at most ``limit`` characters, never empty, never hidden."""
    return _UNSAFE.sub("_", str(text))[:limit].strip("._") or fallback
