"""Steering: the user's words reach a run that is already going.

Text the user steers with while a reply streams interrupts that reply at once: what was
streamed stays in the conversation (the model reads what it had said, marked as
interrupted), nothing of the interrupted attempt is applied or run (the round's invariant:
only a finished, successful attempt changes anything), and the round is asked again with
the user's words after it. Text steered while blocks run, or between rounds, goes with the
next round's request; when the run would end without one, one more round carries it. A
steered attempt is not a failure: it uses none of the round's retries.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, TypeVar

from tai_core.models import Message

T = TypeVar("T")

#: What follows an interrupted reply in the conversation.
INTERRUPTED = "[the user interrupted this reply]"
#: The heading of steering text that goes with a round's request.
STEERED_HEADING = "# The user adds"


class Steering:
    """The steering text of one session that no request has carried yet."""

    def __init__(self) -> None:
        self.pending: list[str] = []
        self._arrived: asyncio.Event | None = None

    def add(self, text: str) -> None:
        """Steer with ``text`` (from the event loop's thread)."""
        self.pending.append(text)
        if self._arrived is not None:
            self._arrived.set()

    def take(self) -> str:
        """The pending text, joined, and none pending after."""
        text = "\n\n".join(self.pending)
        self.pending.clear()
        return text

    async def race(self, attempt: Coroutine[Any, Any, T]) -> T | None:
        """``attempt``'s result, or ``None`` when steering text arrived first (the attempt
        is then cancelled and awaited)."""
        if self.pending:
            attempt.close()
            return None
        self._arrived = asyncio.Event()
        running = asyncio.ensure_future(attempt)
        waiting = asyncio.ensure_future(self._arrived.wait())
        try:
            await asyncio.wait({running, waiting}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._arrived = None
            waiting.cancel()
            if not running.done():
                running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
        if running.cancelled():
            return None
        return running.result()


def with_steering(messages: tuple[Message, ...], text: str) -> tuple[Message, ...]:
    """``messages`` with steering ``text`` added to the last (the user's) message."""
    last = messages[-1]
    return (*messages[:-1], Message(last.role, f"{last.text}\n\n{STEERED_HEADING}\n\n{text}"))


def interrupted(messages: tuple[Message, ...], partial: str, text: str) -> tuple[Message, ...]:
    """``messages`` after a reply interrupted by steering ``text``: the reply as far as it
    came, marked, then the user's words."""
    reply = f"{partial.rstrip()}\n\n{INTERRUPTED}" if partial.strip() else INTERRUPTED
    return (*messages, Message("assistant", reply), Message("user", text))
