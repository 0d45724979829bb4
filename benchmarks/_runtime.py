"""Sessions driven through the runtime in this process, against the fake model server in a
process of its own (not a benchmark itself).

``Bench`` loads the plugins, points a model at a ``Served`` server and runs a runtime that
keeps its sessions in a real database in a temporary directory, as ``tai ai`` does. Times
are taken with ``time.monotonic`` on both sides: the server reports when each request
arrived on the same system-wide clock, so "to the request" means to its arrival at the
server, not to a function call inside tai.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import attrs
from _timing import Series

from tai_core.commands._session import make_setup
from tai_core.models import resolve_model
from tai_core.plugins import LoadOptions, PluginHost
from tai_core.runtime import (
    TERMINAL_EVENTS,
    Cancel,
    EventBus,
    Runtime,
    StartSession,
    Submit,
    Subscription,
)
from tai_core.sessions import SessionStore


class Bench:
    """A runtime with kept sessions whose model is ``served``."""

    def __init__(self, served: Any, directory: Path) -> None:
        self.served = served
        self.directory = directory
        self.host = PluginHost(LoadOptions())
        self.host.load_entry_points()
        config = {
            "generators": [
                {"name": "local", "type": "openai", "model": "m",
                 "base_url": served.base_url, "api_key": "k", "read_timeout": 60.0}
            ]
        }  # fmt: skip
        spec = resolve_model("local", config, self.host.registry.providers, {})
        self.model = (self.host.registry.providers[spec.provider], spec)
        self.config = config
        self.runtime = Runtime(self.host.pm.hook, EventBus(),
                               store=SessionStore(directory / "sessions.db"))  # fmt: skip
        self.events: Subscription = self.runtime.bus.subscribe()
        self._count = 0

    def start(self) -> str:
        """A new session; its id."""
        self._count += 1
        setup = make_setup(
            self.host, self.config, self.model, command="ai", system="You answer briefly.",
            require_completion=False, cwd=self.directory,
        )  # fmt: skip
        session_id = f"s{self._count}"
        setup = attrs.evolve(setup, options=attrs.evolve(setup.options, session_id=session_id))
        self.runtime.handle(StartSession(setup))
        return session_id

    async def arrival(self) -> float:
        """When the server received the next request (monotonic)."""
        arrived, _ = await asyncio.to_thread(self.served.next_arrival)
        return arrived

    async def turn(self, session_id: str, text: str) -> float:
        """Submit ``text`` and wait for the turn to end; seconds from the submit to the
        request's arrival at the server."""
        sent = time.monotonic()
        self.runtime.handle(Submit(session_id, text))
        arrived = await self.arrival()
        await self.until_terminal(session_id)
        return arrived - sent

    async def until(self, kind: type, session_id: str) -> float:
        """Until an event of ``kind`` of the session; when it was taken (monotonic)."""
        while True:
            event = await self.events.get()
            if isinstance(event, kind) and getattr(event, "session_id", None) == session_id:
                return time.monotonic()

    async def until_terminal(self, session_id: str) -> None:
        await self.until(TERMINAL_EVENTS, session_id)  # type: ignore[arg-type]

    async def cancel(self, session_id: str) -> None:
        self.runtime.handle(Cancel(session_id))
        await self.until_terminal(session_id)
        await self.runtime.wait(session_id)


async def alternate(
    measures: Mapping[str, Callable[[], Awaitable[float]]], runs: int
) -> dict[str, Series]:
    """``_timing.alternate`` for measures that await: a warm-up round, then ``runs`` rounds
    in which each measure runs once, the order turning from round to round."""
    names = list(measures)
    found: dict[str, list[float]] = {name: [] for name in names}
    for run in range(runs + 1):  # the first round is the warm-up
        shift = run % len(names)
        for name in names[shift:] + names[:shift]:
            value = await measures[name]()
            if run:
                found[name].append(value)
    return {name: Series(tuple(values)) for name, values in found.items()}
