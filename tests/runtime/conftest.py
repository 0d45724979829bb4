"""Driving real sessions through the runtime with the replay provider."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest

from tai_core.commands._session import make_setup
from tai_core.models import Prices, RetryPolicy, resolve_model
from tai_core.plugins import PluginHost
from tai_core.runtime import (
    Event,
    EventBus,
    Runtime,
    StartSession,
)
from tai_core.testing import SessionRun
from tai_core.testing._session import one_turn

FAST_RETRIES = RetryPolicy(attempts=3, base_delay=0.001, max_delay=0.01)


def transcript(path: Path, replies: Sequence[str]) -> Path:
    """A replay transcript with one ``@@@ reply`` section per reply (directives allowed)."""
    path.write_text(
        "".join(
            f"@@@ reply\n{reply}" + ("" if reply.endswith("\n") else "\n") for reply in replies
        ),
        encoding="utf-8",
    )
    return path


@attrs.frozen
class Outcome(SessionRun):
    """What a session published and its state when it ended (the testing kit's
    :class:`SessionRun`), with the runtime that ran it."""

    runtime: Runtime
    session_id: str


def run_replay(
    host: PluginHost,
    tmp_path: Path,
    replies: Sequence[str],
    user: str = "Do the task.",
    *,
    command: str = "go",
    require_completion: bool = True,
    workspace: Any = None,
    handoff: Any = None,
    describe: Any = None,
    schedule_interval: float = 0.0,
    context_tokens: int | None = None,
    prices: Prices | None = None,
    run_options: dict[str, Any] | None = None,
    spec_changes: dict[str, Any] | None = None,
    linger: float | None = None,
) -> Outcome:
    """Run one submit of a session whose model replays ``replies`` (with a window of
    ``context_tokens``, ``prices`` and ``run_options`` for :class:`RunOptions` when given);
    with ``linger``, the runtime stays up that many seconds after the run and is then shut
    down, and the events include what it published until then (schedule ticks, the
    session's end)."""
    path = transcript(tmp_path / "model.replay", replies)
    spec = resolve_model(f"replay:{path}", {}, host.registry.providers, {})
    if context_tokens is not None:
        spec = attrs.evolve(spec, context_tokens=context_tokens)
    if prices is not None:
        spec = attrs.evolve(spec, prices=prices)
    if spec_changes:
        spec = attrs.evolve(spec, **spec_changes)
    provider = host.registry.providers[spec.provider]
    setup = make_setup(
        host, {}, (provider, spec), command=command, system="SYSTEM",
        require_completion=require_completion, cwd=tmp_path, workspace=workspace,
        handoff=handoff, describe=describe,
    )  # fmt: skip
    setup = attrs.evolve(setup, retry_policy=FAST_RETRIES)
    if run_options:
        setup = attrs.evolve(setup, options=attrs.evolve(setup.options, **run_options))

    async def scenario() -> Outcome:
        runtime = Runtime(host.pm.hook, EventBus(), schedule_interval=schedule_interval)
        subscription = runtime.bus.subscribe()
        session_id = setup.options.session_id
        events = await one_turn(runtime, subscription, setup, user)
        state = runtime.state(session_id)
        if linger is not None:
            await asyncio.sleep(linger)
            await runtime.shutdown()
            events += subscription.take_pending()
        return Outcome([], events, state, runtime, session_id)

    return asyncio.run(scenario())


@pytest.fixture
def replay(host: PluginHost, tmp_path: Path):
    """``replay(replies, user=…, **options)`` runs a session against those replies."""

    def run(replies: Sequence[str], user: str = "Do the task.", **options: Any) -> Outcome:
        return run_replay(host, tmp_path, replies, user, **options)

    return run


def drive_server_session(
    host: PluginHost,
    server: Any,
    tmp_path: Path,
    scenario: Any,
    *,
    run_options: dict[str, Any] | None = None,
    generator: dict[str, Any] | None = None,
    more_generators: list[dict[str, Any]] | None = None,
    setup_changes: dict[str, Any] | None = None,
    **runtime_options: Any,
) -> list[Event]:
    """Start session ``s`` (command ``next``, no completion needed) with a model served by
    ``server`` (a :class:`tests.servers.FakeModelServer`), run ``await scenario(runtime)``,
    shut the runtime down; every event it published. ``generator``: more fields of the
    model's generator entry (``context_tokens``); ``more_generators``: other entries;
    ``setup_changes``: fields of the session's setup to replace."""
    config = {
        "generators": [
            {"name": "local", "type": "openai", "model": "m", "base_url": server.base_url,
             "api_key": "k", "read_timeout": 60.0, **(generator or {})},
            *(more_generators or []),
        ]
    }  # fmt: skip
    spec = resolve_model("local", config, host.registry.providers, {})
    setup = make_setup(
        host, config, (host.registry.providers[spec.provider], spec), command="next",
        system="S", require_completion=False, cwd=tmp_path,
    )  # fmt: skip
    options = attrs.evolve(setup.options, session_id="s", **(run_options or {}))
    setup = attrs.evolve(setup, options=options, **(setup_changes or {}))
    events: list[Event] = []

    async def main() -> None:
        runtime = Runtime(host.pm.hook, EventBus(), **runtime_options)
        subscription = runtime.bus.subscribe()
        runtime.handle(StartSession(setup))
        await scenario(runtime)
        await runtime.shutdown()
        runtime.bus.close()
        events.extend([event async for event in subscription])

    asyncio.run(main())
    return events
