"""A tree of 10,000 small files for the checkpoint figures (``checkpoint.py``, ``undo.py``).

100 directories of 100 files of 200 bytes to 4 KB, a ``.gitignore`` with the usual
patterns, every file backdated a minute (files are rarely written in the second before a
checkpoint); ``TAI_DATA_DIR`` points into a fresh temporary directory.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

FILES = 10_000


def make_tree(base: Path) -> Path:
    """Create the tree under ``base/work`` and use ``base/data`` as tai's data directory."""
    root = base / "work"
    past = time.time_ns() - 60_000_000_000
    for index in range(FILES):
        path = root / f"pkg{index % 100}" / f"file{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"# file {index}\n".encode() + b"x" * (200 + index % 4000))
        os.utime(path, ns=(past, past))
    (root / ".gitignore").write_text("*.pyc\n__pycache__/\nbuild/\n.venv/\n")
    (base / "data").mkdir()
    os.environ["TAI_DATA_DIR"] = str(base / "data")
    return root


def change(root: Path, count: int, generation: int) -> None:
    """Rewrite ``count`` files (backdated, as an earlier round would leave them)."""
    past = time.time_ns() - 30_000_000_000
    for index in range(count):
        path = root / f"pkg{index}" / f"file{index}.py"
        path.write_bytes(f"# generation {generation}\n".encode())
        os.utime(path, ns=(past, past))
