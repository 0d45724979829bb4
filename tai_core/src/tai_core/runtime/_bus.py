"""The asyncio event bus between the runtime and its clients.

Delivery rules (each is tested in ``tests/runtime/test_bus.py``):

1. A subscriber receives every event published after it subscribed, in publication order;
   events published before are not delivered to it (a client that needs the state asks
   the runtime for a snapshot instead).
2. Nothing is lost, and publishing never waits: ``publish`` appends to each subscriber's
   queue and returns, so a slow or stuck client can never stall a run.
3. Memory stays bounded by the run's text, not by the number of events: while an event
   waits in a subscriber's queue, the next event of the same stream is merged into it —
   adjacent text pieces (same session, same round) are concatenated, adjacent thought
   pieces likewise, and an adjacent newer tree snapshot replaces the older one. A slow
   client therefore sees fewer, larger pieces with exactly the same text.
4. Terminal events (run finished, failed or cancelled; session closed) are never merged or
   replaced.
5. After ``close()``, subscriptions drain what is queued and then end.

The bus is used from one event loop; ``publish`` is a plain function so the pipeline's
synchronous parts (the parser's callbacks) can publish without awaiting.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator

import attrs

from tai_core.events import Event, TextReceived, ThoughtReceived, TreeChanged


def _merged(waiting: Event, event: Event) -> Event | None:
    """``event`` merged into ``waiting`` (the last queued event), or ``None`` when the two
    are not of one stream."""
    if type(waiting) is not type(event):
        return None
    if isinstance(event, TextReceived | ThoughtReceived):
        assert isinstance(waiting, TextReceived | ThoughtReceived)
        if (waiting.session_id, waiting.round) == (event.session_id, event.round):
            return attrs.evolve(waiting, text=waiting.text + event.text)
        return None
    if isinstance(event, TreeChanged):
        assert isinstance(waiting, TreeChanged)
        return event if waiting.session_id == event.session_id else None
    return None


class Subscription:
    """One client's view of the bus: iterate it (``async for event in subscription``)."""

    def __init__(self, bus: EventBus) -> None:
        self._bus = bus
        self._queue: deque[Event] = deque()
        self._ready = asyncio.Event()
        self._closed = False

    def _put(self, event: Event) -> None:
        if self._queue:
            merged = _merged(self._queue[-1], event)
            if merged is not None:
                self._queue[-1] = merged
                return
        self._queue.append(event)
        self._ready.set()

    def _end(self) -> None:
        self._closed = True
        self._ready.set()

    @property
    def pending(self) -> int:
        """Events waiting to be taken (after merging)."""
        return len(self._queue)

    def take_pending(self) -> list[Event]:
        """The events waiting now, taken without waiting for more."""
        taken = list(self._queue)
        self._queue.clear()
        return taken

    async def get(self) -> Event | None:
        """The next event, or ``None`` once the bus (or this subscription) is closed and
        the queue is drained."""
        while not self._queue:
            if self._closed:
                return None
            self._ready.clear()
            await self._ready.wait()
        return self._queue.popleft()

    def close(self) -> None:
        """Stop receiving; what is already queued can still be taken."""
        self._bus._subscriptions.discard(self)
        self._end()

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Event]:
        while (event := await self.get()) is not None:
            yield event


class EventBus:
    """Publishes events to every subscription, by the rules of this module."""

    def __init__(self) -> None:
        self._subscriptions: set[Subscription] = set()
        self._closed = False

    def subscribe(self) -> Subscription:
        """A new subscription, receiving events published from now on."""
        subscription = Subscription(self)
        if self._closed:
            subscription._end()
        else:
            self._subscriptions.add(subscription)
        return subscription

    def publish(self, event: Event) -> None:
        """Deliver ``event`` to every current subscription; never waits."""
        if self._closed:
            raise RuntimeError(f"event published on a closed bus: {type(event).__name__}")
        for subscription in list(self._subscriptions):
            subscription._put(event)

    def close(self) -> None:
        """End every subscription once its queue is drained."""
        self._closed = True
        for subscription in list(self._subscriptions):
            subscription._end()
        self._subscriptions.clear()
