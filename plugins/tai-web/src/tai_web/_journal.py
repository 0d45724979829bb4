"""What a page that connects late is sent first: each live session's events, compacted.

The bus delivers to a subscriber only what is published after it subscribed; the journal
is the subscriber that was there from the start. It keeps, per live session, the events
a page needs to draw it, compacted as the bus compacts a slow subscriber's queue (one
text piece per round and attempt, one thought piece likewise, only the newest tree) —
so its size follows the session's text, not its number of events — and never drops a
terminal event, a question or its answer. A session leaves the journal when it closes
or is deleted; a reset keeps only its start.
"""

from __future__ import annotations

from typing import Any

import attrs

from tai_core.events import (
    Event,
    RoundStarted,
    SessionClosed,
    SessionDeleted,
    SessionReset,
    SessionStarted,
    TextReceived,
    ThoughtReceived,
    TreeChanged,
)
from tai_core.runtime import Subscription


class _Kept:
    """One live session's compacted events."""

    def __init__(self, started: SessionStarted) -> None:
        self.events: list[Event] = [started]
        #: Where this attempt's text and thought pieces are (reset by a round's start).
        self.pieces: dict[type, int] = {}
        self.tree: int | None = None

    def take(self, event: Event) -> None:
        if isinstance(event, RoundStarted):
            self.pieces = {}
        if isinstance(event, TextReceived | ThoughtReceived):
            at = self.pieces.get(type(event))
            if at is not None:
                piece = self.events[at]
                assert isinstance(piece, TextReceived | ThoughtReceived)
                self.events[at] = attrs.evolve(piece, text=piece.text + event.text)
                return
            self.pieces[type(event)] = len(self.events)
        elif isinstance(event, TreeChanged) and self.tree is not None:
            self.events[self.tree] = event  # only the newest tree matters, where the first was
            return
        elif isinstance(event, TreeChanged):
            self.tree = len(self.events)
        self.events.append(event)


class Journal:
    """The events of the live sessions, read from ``subscription`` (taken when the runtime
    started, before any session)."""

    def __init__(self, subscription: Subscription) -> None:
        self._subscription = subscription
        self._sessions: dict[str, _Kept] = {}

    async def run(self) -> None:
        """Keep up with the bus until it closes."""
        while (event := await self._subscription.get()) is not None:
            self._take(event)

    def catch_up(self) -> list[Event]:
        """Every live session's events up to now (what the bus has published, all of it:
        call it in the same step of the event loop as the new client's ``subscribe``)."""
        for event in self._subscription.take_pending():
            self._take(event)
        return [event for kept in self._sessions.values() for event in kept.events]

    def live(self) -> list[str]:
        """The ids of the live sessions, oldest first."""
        return list(self._sessions)

    def _take(self, event: Any) -> None:
        session_id = getattr(event, "session_id", None)
        if isinstance(event, SessionStarted):
            self._sessions[event.session_id] = _Kept(event)
        elif isinstance(event, SessionClosed | SessionDeleted):
            self._sessions.pop(event.session_id, None)
        elif isinstance(event, SessionReset) and session_id in self._sessions:
            started = self._sessions[event.session_id].events[0]
            assert isinstance(started, SessionStarted)
            self._sessions[event.session_id] = _Kept(started)
            self._sessions[event.session_id].take(event)
        elif session_id in self._sessions:
            self._sessions[session_id].take(event)
