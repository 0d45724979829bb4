"""One task through the real runtime and pipeline, in process, against a scripted model."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from tai_core.blocks import BlockResult, block_prompts
from tai_core.events import BlockFinished, Notice
from tai_core.models import GenerationRequest, ModelSpec, Provider, RetryPolicy
from tai_core.pipeline import RunState
from tai_core.plugins import PluginHost, hookimpl
from tai_core.runtime import (
    TERMINAL_EVENTS,
    Event,
    EventBus,
    RunFinished,
    Runtime,
    SessionSetup,
    StartSession,
    Submit,
    Subscription,
)
from tai_core.tree import SessionTree

#: Retries a test need not wait for: the pipeline's rules, milliseconds apart.
QUICK_RETRIES = RetryPolicy(attempts=3, base_delay=0.001, max_delay=0.01)


@attrs.frozen
class SessionRun:
    """What a session did: the requests the model received, every event in order, and the
    state it ended in."""

    #: The requests a :class:`ScriptedModel` received (empty for another provider).
    requests: list[GenerationRequest]
    events: list[Event]
    state: RunState | None

    def of(self, cls: type) -> list[Any]:
        """The events of type ``cls``."""
        return [event for event in self.events if isinstance(event, cls)]

    @property
    def terminal(self) -> Event:
        """How the turn ended: ``RunFinished``, ``RunFailed`` or ``RunCancelled``."""
        return next(event for event in self.events if isinstance(event, TERMINAL_EVENTS))

    @property
    def finished(self) -> bool:
        """True when the turn finished (rather than failed or was cancelled)."""
        return isinstance(self.terminal, RunFinished)

    @property
    def results(self) -> list[BlockResult]:
        """The result of every block that ran, in order."""
        return [event.result for event in self.of(BlockFinished)]

    @property
    def warnings(self) -> list[str]:
        """The warnings the session published (a plugin's failure among them)."""
        return [event.message for event in self.of(Notice) if event.level == "warning"]

    @property
    def tree(self) -> SessionTree | None:
        """The session tree as the pipeline wrote it."""
        return self.state.tree if self.state is not None else None


def _on_host(host: PluginHost, model: Provider) -> None:
    """Register ``model`` as a provider of ``host`` unless it is one already (in place of an
    earlier scripted model of the same name: each session of a test may script its own)."""
    if host.registry.providers.get(model.name) is model:
        return
    name = f"tai-testing-{model.name}"
    host.unregister(name)

    class Registers:
        @hookimpl
        def tai_register_providers(self, register: Any) -> None:
            register(model)

    record = host.register(Registers(), name)
    if record.status != "loaded":
        raise ValueError(f"the scripted model cannot be registered: {record.error}")


def run_session(
    host: PluginHost,
    model: Provider,
    task: str,
    *,
    cwd: Path,
    command: str = "go",
    config: Mapping[str, Any] | None = None,
    apply: bool = True,
    require_completion: bool = False,
    spec: ModelSpec | None = None,
) -> SessionRun:
    """Run ``task`` as one turn of a new session of ``command`` in ``cwd``, the model being
    ``model`` — a :class:`ScriptedModel`, or a provider under test with its ``spec`` —
    registered on ``host`` when it is not yet: the system prompt holds the
    block kinds' sections as a run's does; change blocks go to the in-memory store and
    reach ``cwd`` when a round succeeds (``apply=False``: a run without a workspace);
    failed calls are retried milliseconds apart. ``config`` is the configuration's values
    (a parsed ``tai.toml``): the plugins get their ``[plugins.NAME]`` settings from it, as
    in a real run. ``require_completion``: the run must end with a ``summary`` (or
    ``done``) block, as the default command's goal loops ask."""
    from tai_core.commands._session import make_setup, open_workspace
    from tai_core.config import Config

    settings = dict(config or {})
    _on_host(host, model)
    host.configure(Config(values=settings))  # [plugins.NAME] checked and given, as tai does
    spec = spec or model.spec(model.name, {}, settings, {})
    system, _ = block_prompts(host.registry.block_kinds.values(), command)
    workspace = open_workspace(host, settings, cwd) if apply else None
    setup = make_setup(
        host, settings, (model, spec), command=command, system=system,
        require_completion=require_completion, cwd=cwd, workspace=workspace,
    )  # fmt: skip
    setup = attrs.evolve(setup, retry_policy=QUICK_RETRIES)
    requests: list[GenerationRequest] = getattr(model, "requests", [])
    first = len(requests)

    async def scenario() -> SessionRun:
        runtime = Runtime(host.pm.hook, EventBus(), extensions=host.registry.extensions())
        subscription = runtime.bus.subscribe()
        events = await one_turn(runtime, subscription, setup, task)
        state = runtime.state(setup.options.session_id)
        await runtime.shutdown()
        events += subscription.take_pending()
        return SessionRun(requests[first:], events, state)

    return asyncio.run(scenario())


async def one_turn(
    runtime: Runtime, subscription: Subscription, setup: SessionSetup, task: str
) -> list[Event]:
    """Start the session ``setup`` sets up on ``runtime`` and submit ``task`` as its one
    turn; the events ``subscription`` received up to the turn's terminal one, once the
    turn has ended."""
    session_id = setup.options.session_id
    runtime.handle(StartSession(setup))
    runtime.handle(Submit(session_id, task, task))
    events: list[Event] = []
    async for event in subscription:
        events.append(event)
        if isinstance(event, TERMINAL_EVENTS):
            break
    await runtime.wait(session_id)
    return events


def project(root: Path, files: Mapping[str, str], config: str | None = None) -> Path:
    """A project directory at ``root`` holding ``files`` (relative path -> text) and, when
    given, the ``tai.toml`` text ``config``; ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    if config is not None:
        (root / "tai.toml").write_text(config, encoding="utf-8")
    return root
