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
    import tempfile  # with shutil and its compressors: not before a file is written

    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    temporary = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            write(file)
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
