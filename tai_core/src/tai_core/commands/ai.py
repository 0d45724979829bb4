"""``tai ai``: an interactive chat with the model, which remembers what it learns about you.

A chat, not a coding run: the reply is the answer (plain text), ``memory`` blocks update
the model's profile of the user (``tai_core.memory``; ``-no-memory`` keeps nothing and
shows nothing), ``shell`` blocks run only with ``-shell`` or an ``allowed_shell_commands``
list, ``response`` blocks may structure an answer; the coding kinds (``change``,
``go-test``, ``continue`` …) are announced as disabled. Files named with ``-file`` go with
the first message. Every turn is saved (``tai sessions``); ``-continue`` takes up the last
session of this directory, ``-resume ID`` any session; with ``-record`` each turn is also a
recorded run (``tai record``). The chat loop is ``_chat``.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import click

from tai_core.commands._options import FLAGS

if TYPE_CHECKING:
    from tai_core.runtime import SessionSetup

THEORY_OF_AI = """\
You are a helpful assistant in a conversation with the user at a terminal. Answer in \
plain text: short paragraphs and lists are fine, tables and heavy Markdown are not. Answer \
the question first; ask back only when the question cannot be answered without it."""


@click.command("ai")
@FLAGS["model"]
@FLAGS["fast_model"]
@FLAGS["files"]
@FLAGS["confidential"]
@FLAGS["thoughts"]
@FLAGS["summarize_thoughts"]
@FLAGS["record"]
@click.option("-shell", "--shell", "shell", is_flag=True, help="Let the model run shell blocks.")
@click.option(
    "-no-memory", "--no-memory", "no_memory", is_flag=True,
    help="Neither use nor update the profile of you that the model keeps.",
)  # fmt: skip
@click.option(
    "-trust-memory", "--trust-memory", "trust_memory", is_flag=True,
    help="Show the memory entries tai did not write (your edits) and sign them, then chat.",
)  # fmt: skip
@click.option(
    "-resume", "--resume", "resume", metavar="ID",
    help="Take up the kept session ID (or an unambiguous prefix of it).",
)  # fmt: skip
@click.option(
    "-continue", "--continue", "continue_", is_flag=True,
    help="Take up the last session of this directory.",
)  # fmt: skip
@click.option(
    "-agent", "--agent", "agent", metavar="NAME",
    help="Switch the session to the agent command NAME first (as /NAME; /help lists them).",
)  # fmt: skip
@FLAGS["cli"]
@FLAGS["tui"]
@click.argument("text", nargs=-1)
@click.pass_obj
def ai_command(app: Any, **params: Any) -> None:
    """Chat with the model interactively; it remembers what it learns about you."""
    import asyncio

    from tai_core.commands._chat import Queued, chat, prompt_source
    from tai_core.commands._printer import Printer
    from tai_core.commands._session import INVOCATION, make_runtime
    from tai_core.commands._terminal import answers_questions
    from tai_core.config import user_data_dir
    from tai_core.runtime import LoadSession, StartSession
    from tai_core.tui import wants_tui

    if params["resume"] is not None and params["continue_"]:
        raise click.UsageError("-resume and -continue cannot be used together")
    if params["resume"] is not None and not params["resume"].strip():
        raise click.UsageError("-resume needs a session id (see tai sessions)")
    if params["agent"]:
        _check_agent(app, params["agent"])
    memory = not (params["no_memory"] or app.config.get("no_memory"))
    if params["trust_memory"]:
        _trust_memory()
    taken = _taken_up(params["resume"], params["continue_"], Path.cwd())
    chosen = taken[0] if taken else None
    kept_model = taken[1] if taken and not app.config.get("model") else None
    model = params["model"] or kept_model  # named now, else tai.toml's, else the kept one's
    chat_setup = make_chat_setup(
        app, model, shell=params["shell"], memory=memory, files=params["files"],
        confidential=params["confidential"], summarize_thoughts=params["summarize_thoughts"],
        fast_model=params["fast_model"],
    )  # fmt: skip
    setup = chat_setup.setup
    session_id = chosen or setup.options.session_id
    opening = LoadSession(chosen, setup) if chosen else StartSession(setup)
    if memory:
        remember(app, session_id)
    announce = functools.partial(_announce, session_id, resumed=bool(chosen))
    answered = answers_questions(tui=params["tui"], cli=params["cli"])
    runtime = make_runtime(app, answers_prompts=answered)
    wanted = params["record"] if params["record"] is not None else bool(app.config.get("record"))

    def new_recorder(text: str) -> Any:
        """Each turn of the chat is a run of its own in the records (-record): it begins
        as a run of ``tai ai`` with the session's model, where a run's record begins."""
        from tai_core.records import Recorder
        from tai_core.runtime import SessionStarted

        recorder = (
            Recorder.open(cwd=Path.cwd(), system=setup.system, user=text, invocation=INVOCATION)
            if wanted else None
        )  # fmt: skip
        if recorder is not None:
            recorder.take(SessionStarted(session_id, "ai", setup.spec.name))
        return recorder

    def new_printer() -> Printer:
        """The reply is the answer: a response block is printed as its answer, every other
        block as written, as the terminal UI shows them — a memory block above all, which
        writes what every later chat's prompt carries and has no result line of its own."""
        from tai_core.tui._state import ANSWER_KINDS

        return Printer(thoughts=params["thoughts"], report=False, unwrap=ANSWER_KINDS)

    text, agent = " ".join(params["text"]), params["agent"] or ""
    if wants_tui(params["tui"], params["cli"]):
        from tai_core.tui._chat import chat_in_tui

        sys.exit(asyncio.run(chat_in_tui(
            runtime, opening, session_id, first_text=chat_setup.first_text,
            thoughts=params["thoughts"], agent=agent, text=text, on_open=announce,
        )))  # fmt: skip
    prompts = prompt_source(user_data_dir())
    status = asyncio.run(
        chat(
            runtime, opening, session_id, Queued([] if agent else [text], prompts),
            first_text=chat_setup.first_text, new_printer=new_printer, new_recorder=new_recorder,
            agent=agent and f"/agent {agent} {text}".rstrip(), on_open=announce,
        )
    )  # fmt: skip
    sys.exit(status)


def _check_agent(app: Any, name: str) -> None:
    """A usage error unless ``name`` is an agent command users may invoke."""
    from tai_core.plugins._agent_commands import invocable, not_invocable

    agents = app.host.declared("agent_commands")
    if invocable(agents, name) is None:
        raise click.UsageError(not_invocable(agents, name))


def _announce(session_id: str, *, resumed: bool) -> None:
    """Say which session the chat is (a new one is kept once a turn is answered), once it
    is open: a session that cannot be resumed is refused without being called resumed."""
    if resumed:
        click.echo(f"tai: resumed session {session_id} (tai ai -resume {session_id})", err=True)
    else:
        click.echo(f"tai: new session {session_id} (kept once a turn is answered: tai ai "
                   f"-resume {session_id})", err=True)  # fmt: skip


@attrs.frozen
class ChatSetup:
    """A chat session's setup, and how its first message is made (the rules and the
    files go with it)."""

    setup: SessionSetup
    first_text: Callable[[str], str]


def make_chat_setup(
    app: Any,
    model_name: str | None,
    *,
    shell: bool = False,
    memory: bool = True,
    files: Sequence[str] = (),
    confidential: bool = False,
    summarize_thoughts: bool | None = None,
    fast_model: str | None = None,
) -> ChatSetup:
    """The setup of a new chat in the working directory (``tai ai``, ``tai serve``)."""
    from tai_core.commands._assemble import standing_texts, writable
    from tai_core.commands._files import file_parts
    from tai_core.commands._session import make_setup, resolve, thought_summarizer
    from tai_core.context import hook_check
    from tai_core.context._prompt import build_prompt

    cwd = Path.cwd()
    config = {**app.config.values, **({"shell": True} if shell else {})}
    if summarize_thoughts:
        config["summarize_thoughts"] = True
    kinds = app.host.registry.block_kinds
    disabled = {name for name, kind in kinds.items() if not kind.available(config)}
    if not memory:
        disabled.add("memory")
    secret = hook_check(app.host.pm.hook, config)
    parts = file_parts(files, cwd, writable(app), secret)
    standing = standing_texts(app, "ai", cwd, config)

    def prompt(task: str, base: str | None = None, off: frozenset[str] | None = None) -> Any:
        return build_prompt(
            base=base or THEORY_OF_AI, kinds=kinds.values(), command="ai", parts=parts,
            task=task, config=config, disabled=disabled if off is None else off,
            standing=standing,
        )  # fmt: skip

    model = resolve(app, model_name, confidential=confidential)
    setup = make_setup(
        app.host, config, model, command="ai", system=prompt("").system,
        require_completion=False, cwd=cwd,
        summarize=thought_summarizer(app, config, fast_model, model),
    )  # fmt: skip
    options = attrs.evolve(setup.options, disabled=frozenset(disabled))
    setup = attrs.evolve(
        setup, options=options, rebuild_system=lambda base, off: prompt("", base, off).system
    )
    return ChatSetup(setup, lambda text: prompt(text).user)


def remember(app: Any, session_id: str) -> None:
    """Register session ``session_id``'s memory (``tai_core.memory``) as a plugin."""
    from tai_core.config import user_data_dir
    from tai_core.memory import MEMORY_FILE, SessionMemory

    def warn(message: str) -> None:
        click.echo(f"tai: warning: {message}", err=True)

    memory = SessionMemory(user_data_dir() / MEMORY_FILE, session_id, warn)
    name = f"ai-memory-{session_id}"
    if app.host.pm.get_plugin(name) is not None:  # the session is started or loaded again
        app.host.unregister(name)
    app.host.register(memory, name)


def _taken_up(resume: str | None, last_here: bool, cwd: Path) -> tuple[str, str] | None:
    """The id and the model of the kept session to take up (``-resume``, ``-continue``),
    or ``None``: the session is the one asked for, so it is found before anything else
    (a model), and its model is the chat's unless another is named or configured."""
    if resume is None and not last_here:
        return None
    from tai_core.commands.sessions import opened_store, resolved
    from tai_core.sessions import sessions_path

    if last_here and not sessions_path().is_file():
        raise click.ClickException(f"no kept session in {cwd} to continue")
    with opened_store() as store:
        if resume:
            found = store.header(resolved(store, resume))
            return found.id, found.model
        last = store.list(1, cwd=str(cwd))
    if not last:
        raise click.ClickException(f"no kept session in {cwd} to continue")
    return last[0].id, last[0].model


def _trust_memory() -> None:
    """Sign the profiles file's entries tai did not write, showing each on stderr."""
    from tai_core._printable import printable
    from tai_core.memory import ProfileDamaged, memory_path, sign_all
    from tai_core.store import StoreError

    try:
        signed = sign_all(memory_path())
    except (ProfileDamaged, StoreError, OSError) as error:
        raise click.ClickException(f"the memory cannot be signed: {error}") from None
    for entry in signed:
        click.echo(f"tai: signed the memory of {printable(entry.model)} ({entry.time}):", err=True)
        for item in entry.items:
            click.echo(f"  - {printable(item)}", err=True)
    if not signed:
        click.echo("tai: every memory entry is tai's already; nothing to sign", err=True)
