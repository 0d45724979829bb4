"""``tai ai``: an interactive chat with the model, which remembers what it learns about you.

A chat, not a coding run: the reply is the answer (plain text), ``memory`` blocks update
the model's profile of the user (``tai_core.memory``; ``-no-memory`` keeps nothing and
shows nothing), ``shell`` blocks run only with ``-shell`` or an ``allowed_shell_commands``
list, ``response`` blocks may structure an answer; the coding kinds (``change``,
``go-test``, ``continue`` …) are announced as disabled. Files named with ``-file`` go with
the first message. Every turn is saved (``tai sessions``); ``-continue`` takes up the last
session of this directory, ``-resume ID`` any session. The chat loop is ``_chat``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from tai_core.commands._options import FLAGS

THEORY_OF_AI = """\
You are a helpful assistant in a conversation with the user at a terminal. Answer in \
plain text: short paragraphs and lists are fine, tables and heavy Markdown are not. Answer \
the question first; ask back only when the question cannot be answered without it."""


@click.command("ai")
@FLAGS["model"]
@FLAGS["files"]
@FLAGS["confidential"]
@FLAGS["thoughts"]
@click.option("-shell", "--shell", "shell", is_flag=True, help="Let the model run shell blocks.")
@click.option(
    "-no-memory", "--no-memory", "no_memory", is_flag=True,
    help="Neither use nor update the profile of you that the model keeps.",
)  # fmt: skip
@click.option(
    "-resume", "--resume", "resume", metavar="ID",
    help="Take up the kept session ID (or an unambiguous prefix of it).",
)  # fmt: skip
@click.option(
    "-continue", "--continue", "continue_", is_flag=True,
    help="Take up the last session of this directory.",
)  # fmt: skip
@click.pass_obj
def ai_command(app: Any, **params: Any) -> None:
    """Chat with the model interactively; it remembers what it learns about you."""
    import asyncio

    import attrs

    from tai_core.cli._printer import Printer
    from tai_core.commands._assemble import writable
    from tai_core.commands._chat import chat, prompt_source
    from tai_core.commands._files import file_parts
    from tai_core.commands._session import make_runtime, make_setup, resolve
    from tai_core.config import user_data_dir
    from tai_core.context import hook_check
    from tai_core.context._prompt import build_prompt
    from tai_core.runtime import LoadSession, StartSession

    if params["resume"] and params["continue_"]:
        raise click.UsageError("-resume and -continue go one without the other")
    cwd = Path.cwd()
    config = {**app.config.values, **({"shell": True} if params["shell"] else {})}
    kinds = app.host.registry.block_kinds
    disabled = {name for name, kind in kinds.items() if not kind.available(config)}
    if params["no_memory"] or config.get("no_memory"):
        disabled.add("memory")
    secret = hook_check(app.host.pm.hook, config)
    parts = file_parts(params["files"], cwd, writable(app), secret)

    def prompt(task: str) -> Any:
        return build_prompt(
            base=THEORY_OF_AI, kinds=kinds.values(), command="ai", parts=parts, task=task,
            config=config, disabled=disabled,
        )  # fmt: skip

    model = resolve(app, params["model"], confidential=params["confidential"])
    setup = make_setup(
        app.host, config, model, command="ai", system=prompt("").system,
        require_completion=False, cwd=cwd,
    )  # fmt: skip
    setup = attrs.evolve(setup, options=attrs.evolve(setup.options, disabled=frozenset(disabled)))
    chosen = _taken_up(params["resume"], params["continue_"], cwd)
    session_id = chosen or setup.options.session_id
    opening = LoadSession(chosen, setup) if chosen else StartSession(setup)
    data_dir = user_data_dir()
    if "memory" not in disabled:
        _remember(app, data_dir, session_id)
    runtime = make_runtime(app)
    status = asyncio.run(
        chat(
            runtime, opening, session_id, prompt_source(data_dir),
            first_text=lambda text: prompt(text).user,
            new_printer=lambda: Printer(thoughts=params["thoughts"], report=False),
        )
    )  # fmt: skip
    sys.exit(status)


def _remember(app: Any, data_dir: Path, session_id: str) -> None:
    """Register the session's memory (``tai_core.memory``) as a plugin."""
    from tai_core.memory import MEMORY_FILE, SessionMemory

    def warn(message: str) -> None:
        click.echo(f"tai: warning: {message}", err=True)

    app.host.register(SessionMemory(data_dir / MEMORY_FILE, session_id, warn), "ai-memory")


def _taken_up(resume: str | None, last_here: bool, cwd: Path) -> str | None:
    """The id of the kept session to take up (``-resume``, ``-continue``), or ``None``."""
    if not resume and not last_here:
        return None
    from tai_core.commands.sessions import opened_store, resolved
    from tai_core.sessions import sessions_path

    if last_here and not sessions_path().is_file():
        raise click.ClickException(f"no kept session in {cwd} to continue")
    with opened_store() as store:
        if resume:
            return resolved(store, resume)
        found = store.list(1, cwd=str(cwd))
    if not found:
        raise click.ClickException(f"no kept session in {cwd} to continue")
    return found[0].id
