"""Files tai writes whole for itself (exports, profiles): written to a temporary file beside
the target and renamed over it, so a reader sees the old file or the new, never half of
one, and a failure leaves no temporary file behind. (The working tree's files go through
the store's flush, which also syncs and journals; these are tai's own small files.)"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TextIO


def write_atomically(path: Path, write: Callable[[TextIO], None]) -> None:
    """Replace ``path`` by what ``write`` writes to a text file (UTF-8)."""

    def fill(handle: int) -> None:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            write(file)

    _replace(path, fill)


def write_bytes_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` (the file readable by the user only, as every file
    written here: ``mkstemp`` makes it so)."""

    def fill(handle: int) -> None:
        with os.fdopen(handle, "wb") as file:
            file.write(data)

    _replace(path, fill)


def _replace(path: Path, fill: Callable[[int], None]) -> None:
    """Have ``fill`` write a temporary file beside ``path`` (given its descriptor), then
    rename it over ``path``; on any failure, remove it."""
    import tempfile  # with shutil and its compressors: not before a file is written

    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    temporary = Path(name)
    try:
        fill(handle)
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
