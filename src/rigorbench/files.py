"""Writing a set of output files, all or a clear error (export, report --data-dir)."""

from __future__ import annotations

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
