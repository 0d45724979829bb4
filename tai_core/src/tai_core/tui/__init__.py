"""The terminal UI: a full-screen client of the runtime, built on prompt_toolkit.

Why shaped so
    The UI is a client like the plain printer and ``tai serve``: it renders events and
    sends commands, nothing else, so it can never disagree with what the runtime did.
    Three parts, each testable alone:

    * ``_state`` folds the events of one session into what the screen shows — the latest
      session tree (every write yields the whole tree: the Tree tab renders that very
      tree), the model's output one section per round and attempt, the log records, and
      the status (model, round, tokens, cost, what runs). Pure Python, no terminal;
    * ``_tree`` lays the tree out as lines with folds, and draws only the rows the window
      shows (prompt_toolkit asks a control for visible lines only), so a tree of ten
      thousand nodes redraws as fast as a small one;
    * ``_app`` is the prompt_toolkit application: tabs, keys, mouse, the status line.

Why prompt_toolkit: the maintained full-screen toolkit of Python's terminal tools (IPython,
pgcli, ptpython), already tai's line editor; it runs on the asyncio loop the runtime
streams on, so events reach the screen without threads, and it can be driven in tests
with a pipe as input and a dummy output. It is imported only when the UI runs.
"""

from __future__ import annotations

import sys
from typing import Any


def wants_tui(tui: bool, cli: bool) -> bool:
    """Whether a run shows the terminal UI: ``-tui`` forces it, ``-cli`` refuses it, and
    by default it is shown when standard output and standard input are a terminal (a
    redirected output gets plain text: the UI would leave a reader nothing)."""
    if cli:
        return False
    return tui or (sys.stdout.isatty() and sys.stdin.isatty())


def front_end(
    runtime: Any, printer: Any, *, tui: bool, cli: bool, thoughts: bool, linger: bool = True
) -> Any:
    """What follows a run: the terminal UI when :func:`wants_tui`, else ``printer``;
    ``linger``: the UI stays after the run until the user leaves."""
    if not wants_tui(tui, cli):
        return printer
    from tai_core.tui._follow import TuiFollower

    return TuiFollower(runtime, printer, thoughts=thoughts, linger=linger)
