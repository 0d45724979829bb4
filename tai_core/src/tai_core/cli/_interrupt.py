"""Ctrl-C anywhere in the console script: one line and status 130, never a traceback.

Python turns SIGINT into ``KeyboardInterrupt`` wherever the main thread happens to be —
inside an import, attrs compiling a class, the sandbox's set-up in the innermost of its
processes — so a Ctrl-C in tai's first half second printed a traceback and ended with
status 1, or with the signal. A run takes SIGINT over while it streams (Ctrl-C cancels
it: ``tai_core.commands._session``); before and after that, the console script's handler
(:func:`interruptible`) raises ``KeyboardInterrupt`` once, so that ``finally`` clauses
and context managers still run (a file half written is removed, a lock let go), and the
script ends with ``tai: interrupted`` and :data:`INTERRUPTED`.

A second SIGINT while the first unwinds — the user pressed again — ends the process at
once with the same status: raised again, it would interrupt the unwinding of the first,
in the middle of an ``except`` clause, and print the traceback this module exists to
avoid. One that comes within :data:`ECHO` of the first is the same Ctrl-C again and is
let pass: a ``kill`` sent to tai's process group reaches tai directly and once or twice
more through the sandbox's outer processes, which forward what ``kill`` sends them (a
terminal's Ctrl-C, which they do not forward, reaches it once).

The console script only: an application embedding tai's ``main`` keeps its own handling
of SIGINT.
"""

from __future__ import annotations

import os
import signal
import sys
import time

TYPE_CHECKING = False  # not typing's: the cached answers import nothing (see _launch)
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType
    from typing import NoReturn

#: Exit status of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
INTERRUPTED = 130
#: The line an interrupted tai leaves on stderr.
LINE = b"\ntai: interrupted\n"

#: Seconds after a SIGINT in which another is the same one, forwarded (a person does not
#: press Ctrl-C twice that fast; forwarding takes a few milliseconds).
ECHO = 0.1

#: Whether the console script's handler is in force, SIGINT was turned into
#: ``KeyboardInterrupt`` once, the line was said; when the first SIGINT came.
_state = {"installed": False, "interrupted": False, "said": False, "at": -ECHO}


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    now = time.monotonic()
    if now - _state["at"] < ECHO:
        return  # the same Ctrl-C, forwarded
    _state["at"] = now
    if _state["interrupted"]:
        if not _state["said"]:  # the stream may be mid-write: straight to the descriptor
            _state["said"] = True
            try:  # noqa: SIM105 - no contextlib: the cached answers import nothing
                os.write(2, LINE)
            except OSError:
                pass  # no standard error: the status says it
        os._exit(INTERRUPTED)
    _state["interrupted"] = True
    raise KeyboardInterrupt


def end() -> NoReturn:
    """End tai as interrupted: the line and :data:`INTERRUPTED`. In the console script,
    the line is said once and, from here on, a SIGINT ends the process at once."""
    if _state["installed"]:
        _state["interrupted"] = True
        signal.signal(signal.SIGINT, _on_sigint)  # a run's own handling may have replaced it
        if _state["said"]:
            sys.exit(INTERRUPTED)
        _state["said"] = True
    try:
        sys.stderr.write(LINE.decode())
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # no standard error: the status says it
    sys.exit(INTERRUPTED)


def interruptible(body: Callable[[], None]) -> None:
    """Call ``body`` with SIGINT raising ``KeyboardInterrupt`` once; a
    ``KeyboardInterrupt`` that leaves it ends tai (:func:`end`). Once ``body`` is left,
    however it was left, a SIGINT ends the process at once: what is left is the
    interpreter's shutdown, with nothing to unwind."""
    signal.signal(signal.SIGINT, _on_sigint)
    _state["installed"] = True
    try:
        body()
    except KeyboardInterrupt:
        end()
    except Exception as error:
        if _state["interrupted"] and _caused_by_interrupt(error):
            end()  # raised while a class was made: Python 3.11 wrapped it in RuntimeError
        raise
    finally:
        _state["interrupted"] = True


def _caused_by_interrupt(error: BaseException) -> bool:
    """Whether a ``KeyboardInterrupt`` is among the causes of ``error``."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False
