"""Agent commands declared in Markdown: the built-in ones, the user's, the project's.

An agent command file, ``NAME.agent.md``, is YAML frontmatter and a Jinja2 template body
(read by :mod:`tai_frontmatter`, the body sandboxed):

.. code-block:: markdown

    ---
    name: review
    description: Review the staged change
    argument-hint: "[focus]"
    tools: [response, shell]       # the block kinds it narrows the session to
    model: fast                    # the model its turns go to (-model's syntax)
    user-invocable: true           # offered as /review (default true)
    disable-model-invocation: false  # left out of the model's index (default false)
    ---
    You review {{ arguments or "the staged change" }} in {{ cwd }} …

The body may use ``cwd``, ``platform``, ``date``, ``model``, ``session_id``, ``kinds`` and
``arguments`` (see :class:`tai_core.plugins.AgentCommand`). Where they come from, each
later one replacing an earlier one of the same name: the built-ins shipped in this
package (``/plan``, ``/research``, ``/rubber-duck``, ``/init``, ``/summarise``, and
``compact``, the instructions of compaction), the user's ``agents/`` in tai's
configuration directory, then the project's ``.tai/agents/`` from the repository's root
down to the working directory. A file that cannot be read is one warning naming its file
and line; the others load. A model cannot plant one: the sandbox protects ``.tai/``.

The model sees an index of the agent commands in ``tai ai``'s system prompt (``/NAME —
description``), so it can suggest one; ``disable-model-invocation: true`` leaves one out.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import click

from tai_core import hookimpl
from tai_core.config import PROJECT_DIR, project_directories, user_config_dir
from tai_core.plugins import AgentCommand, agent_usage

#: The file names of agent commands.
SUFFIX = ".agent.md"
#: An agent command's name: what users type after ``/``.
NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
#: The longest description.
DESCRIPTION_LIMIT = 1024


def agent_from(path: Path, source: str) -> AgentCommand:
    """The agent command the file ``path`` declares (``source``: where it comes from, for
    messages); :class:`tai_frontmatter.FormatError` when it cannot be read."""
    from tai_frontmatter import FormatError, flag, read_document, template, text, words

    document = read_document(path)
    name = text(document, "name", required=True)
    if not NAME.match(name):
        raise FormatError(
            str(path), document.line_of("name"),
            f"'name' must be lowercase letters, digits and hyphens (up to 64), not {name!r}",
        )  # fmt: skip
    return AgentCommand(
        name=name,
        description=text(document, "description", required=True, limit=DESCRIPTION_LIMIT),
        render=template(document),
        tools=words(document, "tools"),
        model=text(document, "model") or None,
        argument_hint=text(document, "argument-hint"),
        user_invocable=flag(document, "user-invocable", True),
        model_invocable=not flag(document, "disable-model-invocation", False),
        source=source,
    )


def _files(directory: Path) -> list[Path]:
    try:
        return sorted(path for path in directory.iterdir() if path.name.endswith(SUFFIX))
    except OSError:
        return []


def sources(cwd: Path) -> list[tuple[str, list[Path]]]:
    """Where agent command files are read from, in order (a later one wins): the
    built-ins, the user's, the project's (root first)."""
    found = [("built-in", _files(Path(__file__).parent / "builtin"))]
    found.append(("user", _files(user_config_dir() / "agents")))
    for directory in project_directories(cwd):
        found.append(("project", _files(directory / PROJECT_DIR / "agents")))
    return found


def discovered(cwd: Path, warn: Callable[[str], None]) -> dict[str, AgentCommand]:
    """The agent commands that apply in ``cwd``, by name; each file that cannot be read is
    one ``warn`` line naming it, and the others still load. A directory's file replaces
    an earlier directory's of the same name on purpose; two files of one directory with
    one name are a mistake, said in one ``warn`` line (the later file is used)."""
    from tai_frontmatter import loaded

    agents: dict[str, AgentCommand] = {}
    for where, paths in sources(cwd):
        read = functools.partial(_agent_of, where)
        here: dict[str, AgentCommand] = {}
        for agent in loaded(paths, read, "agent command", warn):
            if agent.name in here:
                warn(f"/{agent.name} is declared twice, by {here[agent.name].source} and by "
                     f"{agent.source}: the latter is used")  # fmt: skip
            here[agent.name] = agent
        agents.update(here)
    return agents


def _agent_of(where: str, path: Path) -> AgentCommand:
    return agent_from(path, f"{where} {path}")


def index(agents: Iterable[AgentCommand]) -> str | None:
    """The model's index of the agent commands it may suggest, or ``None``."""
    lines = [
        f"- {agent_usage(agent)}"
        for agent in sorted(agents, key=lambda agent: agent.name)
        if agent.model_invocable and agent.user_invocable
    ]
    if not lines:
        return None
    return "\n".join([
        "# Agent commands\n\nThe user can switch this chat into a mode by typing its "
        "command; when a request fits one, suggest it (you cannot switch yourself):",
        *lines,
    ])  # fmt: skip


def _warn(line: str) -> None:
    click.echo(f"tai: warning: {line}", err=True)


@functools.cache
def _applying(cwd: Path) -> Mapping[str, AgentCommand]:
    """The agent commands of ``cwd``, read once per process."""
    return discovered(cwd, _warn)


@hookimpl
def tai_register_agent_commands(register: Callable[[Any], None]) -> None:
    """Register the agent commands that apply in the working directory."""
    for agent in _applying(Path.cwd()).values():
        register(agent)


@hookimpl
def tai_system_prompt(command: str, cwd: str, config: Mapping[str, Any]) -> str | None:
    """In a chat, the index of the agent commands the model may suggest."""
    del config
    return index(_applying(Path(cwd)).values()) if command == "ai" else None
