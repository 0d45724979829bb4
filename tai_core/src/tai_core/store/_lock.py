"""One flush at a time per working directory, across processes.

The lock is an advisory ``flock`` on the working directory itself: it needs no lock file
(nothing is left in the user's tree), every process that can write the files can take it,
and the kernel releases it when its holder dies, so a killed tai never leaves a stale lock
behind. Recovery takes the same lock, so it never mistakes another process's flush in
progress for an interrupted one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tai_core.store._errors import FlushError

#: How long a flush waits for another process's flush into the same directory.
LOCK_TIMEOUT = 60.0
_POLL = 0.01


@contextmanager
def directory_lock(root: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the exclusive flush lock of ``root`` for the duration of the ``with`` block."""
    fd = _locked(root, timeout)
    try:
        yield
    finally:
        os.close(fd)


def _locked(root: Path, timeout: float) -> int:
    """A descriptor of ``root`` holding its exclusive flush lock, taken within ``timeout``
    seconds; :class:`FlushError` (nothing held, nothing open) when it is not. (Apart from
    the ``with`` form so that the waiting is a plain function, as mutation testing needs.)"""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        raise FlushError("flushing changes needs a POSIX system (flock)") from None
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)  # POSIX: the lock is the directory's
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise FlushError(
                    f"another tai process has been writing to {root} for over "
                    f"{timeout:.0f} s; nothing was written"
                ) from None
            time.sleep(_POLL)
