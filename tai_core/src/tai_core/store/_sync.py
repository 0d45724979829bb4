"""Writing so that it survives a power loss: a file's bytes, and a directory's entries."""

from __future__ import annotations

import os
from pathlib import Path


def fsync_dir(path: Path) -> None:
    """Make the entries of directory ``path`` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_synced(path: Path, data: bytes, mode: int) -> None:
    """Write ``data`` to ``path`` (made with ``mode``, or truncated) and fsync it.

    ``os.write`` may write less than it was given (a file-size limit reached part way
    writes what fits and says so only in its count); the rest is written until it raises."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        rest = memoryview(data)
        while rest:
            rest = rest[os.write(fd, rest) :]
        os.fsync(fd)
    finally:
        os.close(fd)
