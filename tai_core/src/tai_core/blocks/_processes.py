"""The programs blocks are running, so that a cancelled run stops them at once.

Blocks run in a worker thread (``pipeline._execute``); a cancel (Ctrl-C) ends the await on
that thread at once, but not the thread, nor the program it waits for — a ``sleep 30`` in
a shell block would hold the exit for 30 seconds, and its children would run on. So a kind
that starts a program in a process group of its own registers the group while it runs
(:func:`running`), and the pipeline kills every registered group when it is cancelled
(:func:`stop_all`); the kind's wait then returns within its polling step.

A cancel can come while the block's thread is still getting ready — before its program
has started, so before there is a group to kill. So the pipeline runs each block's thread
under the cancel's event (:func:`cancellable`), and a group registered by a thread whose
run was cancelled already is killed as it registers: a program never outlives the cancel
however the two interleave. The registry is the process's: in a runtime that runs several
sessions at once (``tai serve``), a cancel stops the programs of all of them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator

_groups: set[int] = set()
_lock = threading.Lock()
_thread = threading.local()


@contextlib.contextmanager
def cancellable(cancelled: threading.Event) -> Iterator[None]:
    """Run the ``with`` block (a block's thread) as one that ``cancelled`` cancels."""
    _thread.cancelled = cancelled
    try:
        yield
    finally:
        _thread.cancelled = None


@contextlib.contextmanager
def running(group: int) -> Iterator[None]:
    """Register process group ``group`` while the ``with`` block runs."""
    with _lock:
        _groups.add(group)
        cancelled = getattr(_thread, "cancelled", None)
        late = cancelled is not None and cancelled.is_set()
    if late:  # its run was cancelled before the program started: it does not run on
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
    try:
        yield
    finally:
        with _lock:
            _groups.discard(group)


def stop_all() -> int:
    """Kill every registered process group; how many there were."""
    with _lock:
        groups = sorted(_groups)
    for group in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
    return len(groups)
