"""The console script's end without the interpreter's teardown.

When a run of ``tai`` is over — its output written, every ``atexit`` function run (the
attrs code cache's, ``weakref.finalize``'s temporary directories, logging's), every
non-daemon thread joined (the interpreter joins them before it calls those functions) —
what is left of a normal exit is the interpreter's finalization: clearing the four
hundred modules of a run and collecting all they hold. It changes nothing outside the
process and took 60 to 90 ms of every run on these machines: a fifth of a ``tai next``,
paid again by each test that runs ``tai``. So the console script skips it: :func:`arm`
registers, before anything else can, the ``atexit`` function that runs last; it flushes
the standard streams and ends the process with the status the run ended with
(``os._exit``).

What keeps that sound:

* It runs after every other ``atexit`` function (the first registered runs last) and
  after the non-daemon threads ended. It is not registered when another was before it
  (that one would never run), and a run that did not get to :func:`ending` finalizes as
  usual.
* The status is the run's: 0, the ``SystemExit``'s integer code, 1 for any other code
  (Python has printed it) or an exception (Python has printed the traceback).
* What tai writes to files is closed by the code that writes it (``with`` blocks, the
  atomic writes, SQLite's commits), so nothing waits in a buffer that only finalization
  would flush; stdout and stderr are flushed here. A reader that went away (``tai … |
  head``) makes that flush fail: the status is then 1 if it was 0, nothing said, as a
  full run ends that way.
* The console script only: an application that embeds ``tai_core`` ends as it ends.
"""

from __future__ import annotations

import atexit
import os
import sys

#: The status the run ended with, once it has (the launch says so).
_ended: list[int] = []


def arm() -> None:
    """Register the ending; called first thing by the console script. Not when an
    ``atexit`` function is registered already (a script that calls the launch itself, a
    test's probe): that one would run after the ending, that is never."""
    registered = getattr(atexit, "_ncallbacks", None)
    if registered is not None and registered() == 0:
        atexit.register(_exit_now)


def ending(code: object) -> None:
    """The run is over with ``code`` (what ``SystemExit`` carries: ``None``, an integer, or
    anything else, which Python has printed)."""
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        status = 1
    _ended[:] = [status]


def _exit_now() -> None:
    if not _ended:
        return  # the run did not get that far: the interpreter ends it as it does
    status = _ended[0]
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a reader gone, a stream closed
            status = status or 1
    os._exit(status & 0xFF)
