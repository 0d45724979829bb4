"""The value a plugin registers for an agent command: a mode of a session (``/plan``).

An agent command is declared, not programmed: a description, the template of the system
prompt it puts in force, the block kinds it restricts the session to and the model it
switches to. The runtime carries it out (:mod:`tai_core.runtime._agents`); where the
declaration comes from — a Markdown file with YAML frontmatter, Python code — is the
registering plugin's business, so this module knows no file format and no runtime.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs


@attrs.frozen
class AgentCommand:
    """A mode a session switches to with ``/NAME [text]`` (``tai ai``, ``tai serve
    -stdio``), or ``tai ai -agent NAME``.

    ``render(data)`` returns the text that replaces the session's base system prompt (the
    block-format sections and the standing texts stay, for the kinds in force); ``data``
    holds ``cwd``, ``platform``, ``date`` (YYYY-MM-DD), ``model``, ``session_id``,
    ``kinds`` (the block kinds in force, sorted) and ``arguments`` (the text after the
    name). It runs when the command is invoked; what it raises is shown as one error line
    and nothing changes.
    """

    #: The word users type after ``/`` (no spaces).
    name: str
    #: One line for ``/help`` and the model's index.
    description: str
    render: Callable[[Mapping[str, Any]], str] = attrs.field(repr=False)
    #: The block kinds the session is restricted to (none: no restriction); a kind that
    #: is off for the session stays off.
    tools: tuple[str, ...] = ()
    #: The model its turns go to (``-model``'s syntax), or ``None`` for the session's.
    model: str | None = None
    #: What to type after the name, for ``/help`` (``"[topic]"``).
    argument_hint: str = ""
    #: Whether users may invoke it (``False``: used by tai itself, such as ``compact``).
    user_invocable: bool = True
    #: Whether the model's index of agent commands lists it.
    model_invocable: bool = True
    #: Where it was declared (a file's path, a plugin's name), for messages.
    source: str = ""


def agent_usage(agent: Any) -> str:
    """How ``agent`` (what fulfils :class:`AgentCommand`) is typed, ``/NAME [hint]``, and
    what it is for: its line in ``/help`` and in the model's index."""
    hint = f" {agent.argument_hint}" if agent.argument_hint else ""
    return f"/{agent.name}{hint} — {agent.description}"


def invocable(agents: Mapping[str, Any], name: str) -> Any | None:
    """The agent command ``name`` of ``agents`` (each name with what fulfils
    :class:`AgentCommand`) when users may invoke it; else ``None``."""
    agent = agents.get(name)
    return agent if agent is not None and agent.user_invocable else None


def not_invocable(agents: Mapping[str, Any], name: str) -> str:
    """The line for ``/name`` when it is no agent command users may invoke: the ones
    that are."""
    known = ", ".join(f"/{n}" for n, a in sorted(agents.items()) if a.user_invocable)
    return f"no agent command /{name} (the agent commands: {known or 'none'})"
