"""Asking the user from a running block: a confirmation, a choice, a line of text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def ask(
    context: Any, kind: str, message: str, *, choices: Sequence[str] = (), default: Any = None
) -> Any:
    """Ask the user through the run's clients and wait for the answer: ``kind`` is
    ``"confirm"`` (the answer is ``True`` or ``False``), ``"select"`` (one of ``choices``)
    or ``"input"`` (a string). ``default`` is the answer when no one can answer — a batch
    run, an unanswered question, a cancelled turn — so make it the safe one. Call it from
    ``execute`` (it blocks that thread only); ``context`` is the block's run context."""
    asker = getattr(context, "ask", None)
    if asker is None:
        return default
    return asker(kind, message, tuple(choices), default)
