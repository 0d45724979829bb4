"""Embedding tai: a two-turn conversation driven from Python, printed as it streams.

Run it from a directory with a replay transcript (or any configured model):

    python examples/embedding/chat.py replay:examples/embedding/replies.txt

The pieces are the ones tai's own clients use: a plugin host (block kinds, providers), a
model resolved from its name, a session setup, the runtime (commands in, events out), and a
subscription to the runtime's bus.
"""

from __future__ import annotations

import asyncio
import os
import sys
import types
from pathlib import Path

from tai_core.models import resolve_model
from tai_core.pipeline import RunOptions
from tai_core.plugins import LoadOptions, PluginHost
from tai_core.runtime import (
    CloseSession,
    EventBus,
    RunFailed,
    RunFinished,
    Runtime,
    SessionSetup,
    StartSession,
    Submit,
    TextReceived,
)


async def main(model_name: str) -> int:
    host = PluginHost(LoadOptions())
    host.load_entry_points()  # tai's own plugins and any installed third-party ones
    spec = resolve_model(model_name, {}, host.registry.providers, os.environ)
    setup = SessionSetup(
        options=RunOptions(command="ai", session_id="embedded", require_completion=False),
        provider=host.registry.providers[spec.provider],
        spec=spec,
        kinds=host.registry.block_kinds,
        system="You are a concise assistant.",
        # what running blocks may know of their run
        context=types.SimpleNamespace(cwd=Path.cwd(), command="ai", config={}, hook=host.pm.hook),
    )
    runtime = Runtime(host.pm.hook, EventBus())  # store=… keeps sessions (tai_core.sessions)
    events = runtime.bus.subscribe()
    runtime.handle(StartSession(setup))
    for question in ("What is tai?", "And in one word?"):
        print(f">> {question}")
        runtime.handle(Submit("embedded", question))
        async for event in events:
            if isinstance(event, TextReceived):
                print(event.text, end="", flush=True)
            elif isinstance(event, RunFailed):
                print(f"failed: {event.message}", file=sys.stderr)
                return 1
            elif isinstance(event, RunFinished):
                print()
                break
    runtime.handle(CloseSession("embedded"))
    await runtime.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "replay:replies.txt")))
