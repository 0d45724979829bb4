"""Agent commands carried out: a session switched to a mode (``/plan``), and back.

The first time a session switches, it keeps what it was set up with (:class:`Own`: its
system prompt, the kinds it had off, its model), and every switch starts from that: an
agent never builds on another agent's changes, and ``/agent off`` restores exactly what
was. An agent's ``tools`` only narrow the kinds (a kind that is off for the session —
``shell`` without ``-shell`` — stays off), so a project's agent file cannot grant what
the user did not. A switch is refused while the session runs: a turn sees one system
prompt and one set of kinds from its start to its end.
"""

from __future__ import annotations

import datetime
import sys
from collections.abc import Mapping
from typing import Any

import attrs

from tai_core.events import AgentActivated, Notice
from tai_core.plugins._agent_commands import agent_usage, invocable, not_invocable
from tai_core.runtime._commands import ActivateAgent, RunExtensionCommand


@attrs.frozen
class Own:
    """What a session was set up with, before any agent command."""

    system: str
    disabled: frozenset[str]
    provider: Any
    spec: Any


class AgentError(Exception):
    """Why a session cannot switch to an agent command (nothing changed)."""


def agent_help(agents: Mapping[str, Any]) -> list[str]:
    """One ``/help`` line per agent command users may invoke, and how to go back."""
    lines = [
        f"{agent_usage(agent)} (agent)"
        for _, agent in sorted(agents.items())
        if agent.user_invocable
    ]
    return (
        [*lines, "/agent off — back to the session's own prompt, kinds and model"] if lines else []
    )


def template_data(setup: Any, model: str, kinds: tuple[str, ...], arguments: str) -> dict[str, Any]:
    """What an agent command's template renders with (see ``AgentCommand``)."""
    return {
        "cwd": str(getattr(setup.context, "cwd", "")), "platform": sys.platform,
        "date": datetime.date.today().isoformat(), "model": model,
        "session_id": setup.options.session_id, "kinds": list(kinds), "arguments": arguments,
    }  # fmt: skip


def compaction_prompt(agents: Mapping[str, Any], setup: Any, warn: Any) -> str | None:
    """The system prompt of compaction from the agent command ``compact`` when one is
    registered (a project may tune it), or ``None`` for the built-in text; a template that
    fails is one ``warn`` line, and the built-in text is used."""
    agent = agents.get("compact")
    if agent is None:
        return None
    try:
        return str(agent.render(template_data(setup, setup.spec.name, (), "")))
    except Exception as error:  # noqa: BLE001 - compaction goes on with its own text
        warn(f"the agent command compact ({agent.source}) failed: {error}; the built-in "
             "instructions of compaction are used")  # fmt: skip
        return None


def agent_switch(agents: Mapping[str, Any], command: RunExtensionCommand) -> ActivateAgent | None:
    """The switch a session command stands for — ``/NAME text`` of an agent command,
    ``/agent NAME text``, ``/agent off`` — or ``None`` when it is not one."""
    if command.name in agents:
        return ActivateAgent(command.session_id, command.name, command.args)
    if command.name != "agent":
        return None
    name, _, rest = command.args.strip().partition(" ")
    return ActivateAgent(command.session_id, "" if name in ("", "off") else name, rest.strip())


def activate(runtime: Any, session: Any, command: ActivateAgent) -> None:
    """Switch ``session`` as ``command`` says, or say why not (an error notice)."""
    try:
        switched = _switched(runtime.extensions.agents, session, command)
    except AgentError as error:
        runtime.bus.publish(Notice(command.session_id, "error", str(error)))
        return
    own, setup, allowed, warning = switched
    session.own = own
    session.agent = command.name
    session.setup = setup
    session.pipeline = runtime._pipeline(setup)
    if warning:
        runtime.bus.publish(Notice(command.session_id, "warning", warning))
    runtime.bus.publish(AgentActivated(command.session_id, command.name, setup.spec.name, allowed))


def _switched(
    agents: Mapping[str, Any], session: Any, command: ActivateAgent
) -> tuple[Own, Any, tuple[str, ...], str]:
    """What ``session`` is after ``command``: what it owns, its new setup, the kinds in
    force, and a warning (``""`` for none)."""
    setup = session.setup
    if setup.rebuild_system is None:
        raise AgentError("this session cannot switch to agent commands")
    own = session.own or Own(setup.system, setup.options.disabled, setup.provider, setup.spec)
    on = {name for name, kind in setup.kinds.items()
          if name not in own.disabled and setup.options.command in kind.commands}  # fmt: skip
    if not command.name:
        allowed = tuple(sorted(on))
        restored = attrs.evolve(
            setup, system=own.system, provider=own.provider, spec=own.spec,
            options=attrs.evolve(setup.options, disabled=own.disabled),
        )  # fmt: skip
        return own, restored, allowed, ""
    agent = invocable(agents, command.name)
    if agent is None:
        raise AgentError(not_invocable(agents, command.name))
    allowed = tuple(sorted(on & set(agent.tools) if agent.tools else on))
    disabled = frozenset(setup.kinds) - set(allowed)
    missing = sorted(set(agent.tools) - set(setup.kinds))
    warning = (f"/{agent.name}: no block kind {', '.join(missing)} is installed"
               if missing else "")  # fmt: skip
    provider, spec = own.provider, own.spec
    if agent.model:
        if setup.resolve_model is None:
            raise AgentError(f"/{agent.name} asks for the model {agent.model}; this session "
                             "cannot switch models")  # fmt: skip
        try:
            provider, spec = setup.resolve_model(agent.model)
        except Exception as error:
            raise AgentError(f"/{agent.name}: its model {agent.model!r}: {error}") from error
    try:
        text = str(agent.render(template_data(setup, spec.name, allowed, command.arguments)))
    except Exception as error:
        where = f" ({agent.source})" if agent.source else ""
        raise AgentError(f"/{agent.name}{where}: its template failed: {error}") from error
    switched = attrs.evolve(
        setup, system=setup.rebuild_system(text, disabled), provider=provider, spec=spec,
        options=attrs.evolve(setup.options, disabled=disabled),
    )  # fmt: skip
    return own, switched, allowed, warning
