"""The console script's start-up without the cyclic garbage collector.

A start of ``tai next`` imports some four hundred modules and defines a few hundred
classes before its request leaves: some 56,000 objects the collector tracks, nearly all
of which live as long as the process. Python's collector, counting allocations, walks them
again and again while they are made — some eighty collections, 15 ms of a start of about
240 ms on these machines — and finds next to nothing to free. So the console script
pauses the collector for its start-up (:func:`pause`, first thing) and, where start-up
ends — the command line parsed, the plugins loaded, the sandbox entered, the command about
to run — :func:`resume` freezes what start-up made (``gc.freeze``: moved to the permanent
generation, never walked again, and pages a fork shares stay shared) and turns the
collector back on for the run. This is the sequence Python's documentation gives for a
process that forks after a long start-up.

What keeps that sound:

* The collector is off only between :func:`pause` and :func:`resume`, which the command
  line reaches before any command runs (``tai_core.cli._main``); a run that ends before it
  (an error in the configuration, a cached answer) ends a process that allocated little,
  and so do the processes that only wait for the sandboxed run (they never return from
  entering the sandbox). Reference counting frees everything acyclic meanwhile.
* What freezing keeps that a collection would have freed is start-up's cyclic garbage:
  the classes attrs replaces by their slotted copies, their functions and cells — about
  4,000 objects, 0.8 MB, once per process. Collecting them first would cost a full
  collection of everything start-up made, 24 ms: more than the pause saves.
* At exit the frozen objects are handed back (``gc.unfreeze``, an ``atexit`` function):
  a process that finalizes as usual (when the quick exit is not armed,
  :mod:`._quick_exit`) finalizes them too — a frozen object is otherwise never finalized.
* The console script only: an application that embeds ``tai_core`` (or a test that calls
  :func:`tai_core.cli.main`) keeps its collector as it set it, and :func:`resume` turns on
  only a collector :func:`pause` turned off.
"""

from __future__ import annotations

import atexit
import gc

#: Whether :func:`pause` turned the collector off (and :func:`resume` has not yet turned
#: it back on).
_paused: list[bool] = []


def pause() -> None:
    """Turn the collector off for start-up, if it is on."""
    if gc.isenabled():
        gc.disable()
        _paused[:] = [True]


def resume() -> None:
    """Start-up is over: keep what it made out of every later collection and turn the
    collector back on (only when :func:`pause` turned it off)."""
    if _paused:
        _paused.clear()
        gc.freeze()
        atexit.register(gc.unfreeze)
        gc.enable()
