"""The plugins' session commands (``/NAME args``), run for the runtime's clients, and the
reload of the plugins and the configuration (:class:`ReloadExtensions`).

A session command runs in a worker thread (it may block: fetch a ticket, read a file) as an
errand of the runtime, so a streaming reply goes on meanwhile and ``settle`` waits for it.
Its output is one :class:`ExtensionCommandFinished`; a failure is one error notice naming
the plugin and the command, and the session goes on. ``help`` is built in: it lists the
commands with their descriptions.

A reload swaps what the runtime runs sessions with — the hook relay, the session commands,
each session's kinds, provider and context (``Reloaded.rebind``) — all at once and only
between turns, so no turn ever sees half of the old plugins and half of the new.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from tai_core._nearest import did_you_mean
from tai_core.events import ExtensionCommandFinished, ExtensionsReloaded, Notice
from tai_core.runtime._agents import agent_help, agent_switch
from tai_core.runtime._bus import EventBus
from tai_core.runtime._commands import (
    CompactSession,
    Reloaded,
    ReloadExtensions,
    RunExtensionCommand,
)


class Extensions:
    """The session commands the plugins registered: name -> (owning plugin, command)."""

    def __init__(
        self,
        commands: Mapping[str, tuple[str, Any]],
        bus: EventBus,
        agents: Callable[[], Mapping[str, Any]] | None = None,
    ) -> None:
        self.commands = dict(commands)
        self.bus = bus
        self._agents = agents
        self._read: Mapping[str, Any] | None = None

    @property
    def agents(self) -> Mapping[str, Any]:
        """The agent commands (``/plan``), by name (:mod:`tai_core.runtime._agents`):
        asked for when first needed, since reading them costs (``PluginHost.declared``)."""
        if self._read is None:
            self._read = dict(self._agents()) if self._agents is not None else {}
        return self._read

    def help(self) -> str:
        """One line per command, ``/NAME — description``, and how to ask for this list."""
        lines = [f"/{name} — {command.description}"
                 for name, (_, command) in sorted(self.commands.items())]  # fmt: skip
        lines += agent_help(self.agents)
        if not lines:
            return "no plugin offers session commands (/help — this list)"
        return "\n".join([*lines, "/help — this list"])

    def unknown(self, name: str) -> str:
        """What to say of ``/name`` when no command has that name: the nearest names, or
        where the list is."""
        offered = [*self.commands, *(n for n, a in self.agents.items() if a.user_invocable),
                   "help", "reload", "compact", "agent"]  # fmt: skip
        meant = did_you_mean(name, offered, lambda near: f"/{near}")
        meant = f"{meant} " if meant else ""
        return f"no command /{name} ({meant}/help lists them)"

    def run(self, session: Any, command: RunExtensionCommand) -> Callable[[], Awaitable[None]]:
        """The errand that runs ``command`` in the session whose options are ``session``."""
        name = command.name.removeprefix("/")
        session_id = command.session_id

        async def errand() -> None:
            if name == "help":
                self.bus.publish(ExtensionCommandFinished(session_id, name, self.help()))
                return
            found = self.commands.get(name)
            if found is None:
                self.bus.publish(Notice(session_id, "error", self.unknown(name)))
                return
            plugin, extension = found
            try:
                output = await asyncio.to_thread(extension.run, session, command.args)
            except Exception as error:  # noqa: BLE001 - a plugin's failure is its own
                failure = f"plugin {plugin!r}: /{name} failed: {type(error).__name__}: {error}"
                self.bus.publish(Notice(session_id, "error", failure))
                return
            self.bus.publish(ExtensionCommandFinished(session_id, name, str(output or "")))

        return errand


def typed_command(agents: Mapping[str, Any], session_id: str, line: str) -> Any:
    """The runtime command a line typed in a chat stands for (``/NAME ARGS``):
    ``/reload``, ``/compact [what to keep]``, an agent command or ``/agent …``
    (``ActivateAgent``), else a plugin's session command — so every client reads a line
    alike."""
    name, _, args = line.removeprefix("/").partition(" ")
    if name == "reload":
        return ReloadExtensions()
    if name == "compact":
        return CompactSession(session_id, args.strip())
    command = RunExtensionCommand(session_id, name, args.strip())
    return agent_switch(agents, command) or command


def reload_extensions(runtime: Any, reload: Callable[[], Reloaded] | None) -> None:
    """Read the configuration and the plugins again with ``reload`` (the front-end's) and
    give ``runtime`` and its sessions what it produced; refused while a turn runs."""
    sessions = runtime._sessions
    running = sorted(sid for sid, s in sessions.items() if s.task is not None and not s.task.done())
    if reload is None or running:
        why = (f"session(s) {', '.join(running)} running: reload when they end" if running
               else "this runtime cannot reload its extensions")  # fmt: skip
        runtime.bus.publish(Notice("", "error", why))
        return
    try:
        reloaded = reload()
    except Exception as error:  # noqa: BLE001 - nothing changes; the user reads why
        runtime.bus.publish(Notice("", "error", f"the extensions were not reloaded: {error}"))
        return
    runtime.hook = reloaded.hook
    runtime.extensions = Extensions(reloaded.extensions, runtime.bus, reloaded.agents)
    if reloaded.app is not None:
        runtime.app = reloaded.app
    for session in sessions.values():
        session.setup = reloaded.rebind(session.setup)
        session.pipeline = runtime._pipeline(session.setup)
    for problem in reloaded.problems:
        runtime.bus.publish(Notice("", "warning", problem))
    runtime.bus.publish(ExtensionsReloaded(reloaded.plugins, reloaded.problems))
