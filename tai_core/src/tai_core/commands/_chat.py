"""The chat loop of ``tai ai``: prompts in, one submit each, the reply printed, until the
user leaves.

Prompts come from a :class:`PromptSource`: on a terminal, prompt_toolkit (a history in
tai's data directory, Alt-Enter or Esc Enter for a new line, Enter sends); with piped
standard input, one prompt per line (blank lines skipped) until its end. Ctrl-C while a
reply streams cancels that reply (nothing of its round is applied) and the chat goes on; at
the prompt, Ctrl-C or Ctrl-D leaves. A line starting with ``/`` runs the plugins' session
command of that name (``/help`` lists them) instead of going to the model; ``/reload``
reads the configuration and the installed plugins again, ``/compact [what to keep]``
replaces the conversation by its summary now; ``/NAME text`` of an agent command (``/plan
…``) switches the session to it and submits the text, ``/agent off`` switches back. Every
turn is
saved by the runtime; leaving closes the session, so ``tai ai -continue`` takes it up
again.

Why prompt_toolkit: it is the maintained line editor of Python's interactive tools
(IPython, pgcli), with history, multi-line editing and an asynchronous prompt that shares
the event loop the runtime streams on; it is imported only when standard input is a
terminal.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from tai_core._printable import printable, shown_on
from tai_core.commands._printer import Printer
from tai_core.commands._session import cancelling_on_ctrl_c
from tai_core.commands._terminal import answering, typing_held
from tai_core.runtime import (
    ActivateAgent,
    AgentActivated,
    Cancel,
    CloseSession,
    Command,
    CompactSession,
    ExtensionCommandFinished,
    ExtensionsReloaded,
    Notice,
    RunFailed,
    RunFinished,
    Runtime,
    SessionCompacted,
    SessionLoaded,
    SessionStarted,
    Submit,
    Subscription,
)
from tai_core.runtime._extensions import typed_command
from tai_core.textfile import NotUTF8Error, checked_utf8
from tai_core.tui._state import LEAVE_COMMANDS, not_kept

#: What the terminal's prompt shows.
PROMPT = ">> "
#: File name of the prompt history in tai's data directory.
HISTORY_FILE = "ai-history"


class PromptSource(Protocol):
    """Where the user's prompts come from."""

    async def read(self) -> str | None:
        """The next prompt, or ``None`` when the user leaves."""
        ...


class PipedPrompts:
    """One prompt per line of ``stream`` (blank lines skipped), until its end; read as
    bytes from standard input by default, so that a line in another encoding reaches the
    chat's UTF-8 check (its bytes kept as lone surrogates) instead of failing the read."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stdin.buffer

    async def read(self) -> str | None:
        while True:
            line = await asyncio.to_thread(self.stream.readline)
            if not line:
                return None
            if isinstance(line, bytes):
                line = line.decode("utf-8", "surrogateescape")
            if line.strip():
                return str(line).rstrip("\n")


class TerminalPrompts:
    """Prompts typed at a terminal, with prompt_toolkit: history in ``history``, Enter
    sends, Alt-Enter (or Esc Enter) adds a line; Ctrl-C or Ctrl-D leaves."""

    def __init__(self, history: Path) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory
        from prompt_toolkit.key_binding import KeyBindings

        bindings = KeyBindings()

        @bindings.add("escape", "enter")
        def _(event: Any) -> None:
            event.current_buffer.insert_text("\n")

        history.parent.mkdir(parents=True, exist_ok=True)
        self._session: Any = PromptSession(
            history=FileHistory(str(history)), key_bindings=bindings, multiline=False
        )

    async def read(self) -> str | None:
        while True:
            try:
                text: str = await self._session.prompt_async(PROMPT)
            except (EOFError, KeyboardInterrupt):
                return None
            if text.strip():
                return text


def prompt_source(data_dir: Path) -> PromptSource:
    """Terminal prompts when standard input is a terminal, else piped ones."""
    if sys.stdin.isatty():
        return TerminalPrompts(data_dir / HISTORY_FILE)
    return PipedPrompts()


class Queued:
    """Prompts given up front (``tai ai "…"``) first, then those of ``source``."""

    def __init__(self, texts: list[str], source: PromptSource) -> None:
        self.texts = [text for text in texts if text.strip()]
        self.source = source

    async def read(self) -> str | None:
        return self.texts.pop(0) if self.texts else await self.source.read()


async def chat(
    runtime: Runtime,
    opening: Command,
    session_id: str,
    prompts: PromptSource,
    *,
    first_text: Callable[[str], str],
    new_printer: Callable[[], Printer],
    new_recorder: Callable[[str], Any] | None = None,
    agent: str = "",
    on_open: Callable[[], None] | None = None,
) -> int:
    """Open the session with ``opening`` (a start or a load; ``on_open`` is called once it
    is open, to say which session it is), switch it as the session
    command ``agent`` says when one is given (``/plan add dark mode``: the text is
    submitted), then submit each prompt until the user leaves;
    the exit status (1 when the session could not be opened, the agent not switched to,
    or a turn failed, so that a script piping prompts sees it).
    ``first_text`` makes the first prompt of a new session its message (the files and
    rules go with it)."""
    subscription = runtime.bus.subscribe()
    runtime.handle(opening)
    await runtime.settle()
    opened = _opened(subscription, session_id)
    if opened is None:
        return 1
    if on_open is not None:
        on_open()
    first = not opened
    failed = asked = False
    try:
        pending = await _extension(runtime, subscription, session_id, agent) if agent else ""
        if pending is None:
            return 1
        while (text := pending or await prompts.read()) is not None:
            pending = ""
            try:
                text = checked_utf8(text, "the prompt")
            except NotUTF8Error as error:  # lone surrogates no API takes
                print(f"tai: error: {error}; it is not sent", file=sys.stderr, flush=True)
                failed = True
                continue
            if text.strip() in LEAVE_COMMANDS:  # as the end of the input does
                break
            if text.startswith("/"):
                text = await _extension(runtime, subscription, session_id, text) or ""
                if not text.strip():
                    continue
            printer = new_printer()
            recorder = new_recorder(text) if new_recorder is not None else None
            recording = (asyncio.create_task(recorder.follow(runtime.bus.subscribe(), session_id))
                         if recorder is not None else None)  # fmt: skip
            runtime.handle(Submit(session_id, first_text(text) if first else text, text))
            asked = True
            # Ctrl-C cancels the turn; the handler is the turn's own, since the prompt
            # installs its own while it reads and removes it after
            with cancelling_on_ctrl_c(lambda: runtime.handle(Cancel(session_id))), typing_held():
                async with answering(runtime, session_id):
                    await printer.follow(subscription, session_id)
                    await runtime.wait(session_id)
            if recording is not None:
                await recording
            failed = failed or isinstance(printer.outcome, RunFailed)
            # a failed or cancelled turn keeps none of its messages: the rules and files go
            # with the next prompt until one turn has kept them
            first = first and not isinstance(printer.outcome, RunFinished)
    finally:
        runtime.handle(CloseSession(session_id))
        await runtime.settle()
        _warnings(subscription, session_id)  # the last save's failure comes after the turn
        subscription.close()
    if first and asked and runtime.keeper.keeps:  # the opening said it would be kept
        print(not_kept(session_id), file=sys.stderr, flush=True)
    return 1 if failed else 0


def _warnings(subscription: Subscription, session_id: str) -> None:
    """Print the warnings published for the session that no turn's printer showed (a save
    runs once a turn has ended: the last one's failure would go unsaid), each once (the
    turn's save and the closing one fail alike)."""
    said: set[str] = set()
    for event in subscription.take_pending():
        if not (isinstance(event, Notice) and event.level == "warning"):
            continue
        if event.session_id in (session_id, "") and event.message not in said:
            said.add(event.message)
            print(f"tai: warning: {printable(event.message)}", file=sys.stderr, flush=True)


async def _extension(
    runtime: Runtime, subscription: Subscription, session_id: str, line: str
) -> str | None:
    """Run the session command ``line`` (``/NAME ARGS``) and print what it says; when it
    switched the session to an agent command, the text to submit next (the arguments),
    else ``None``."""
    command = typed_command(runtime.extensions.agents, session_id, line)
    switch = command if isinstance(command, ActivateAgent) else None
    runtime.handle(command)
    if isinstance(command, CompactSession):
        await runtime.wait(session_id)
    await runtime.settle()
    switched = None
    for event in subscription.take_pending():
        if isinstance(event, AgentActivated) and switch is not None:
            mode = f"/{event.name}" if event.name else "the session's own prompt"
            print(f"agent: {mode} (model {event.model}; kinds: {', '.join(event.kinds)})",
                  flush=True)  # fmt: skip
            switched = switch.arguments
        elif isinstance(event, ExtensionsReloaded):
            print(f"reloaded: {len(event.plugins)} plugins", flush=True)
        elif isinstance(event, SessionCompacted):
            print(f"compacted: {event.messages_before} messages into a summary of "
                  f"{len(event.summary)} characters", flush=True)  # fmt: skip
        elif isinstance(event, Notice) and event.level == "warning":
            print(f"tai: warning: {printable(event.message)}", file=sys.stderr, flush=True)
        elif isinstance(event, ExtensionCommandFinished) and event.output:
            # a plugin's text: line by line, no escape sequence reaches the terminal
            print("\n".join(map(printable, event.output.splitlines())), flush=True)
            if event.name == "help":  # the chat's own command beside the runtime's
                print("/reload — read the configuration and the installed plugins again")
                print("/compact [what to keep] — replace the conversation by its summary")
        elif isinstance(event, Notice) and event.level == "error":
            print(f"tai: error: {printable(event.message)}", file=sys.stderr, flush=True)
    return switched


def _opened(subscription: Subscription, session_id: str) -> bool | None:
    """Whether the session was loaded (``True``) or started (``False``), from the events
    published so far; ``None``, with the reasons printed, when it was not opened."""
    opened: bool | None = None
    for event in subscription.take_pending():
        if isinstance(event, SessionLoaded) and event.session_id == session_id:
            opened = True
        elif isinstance(event, SessionStarted) and event.session_id == session_id:
            opened = bool(opened)
        elif isinstance(event, Notice) and event.level in ("error", "warning"):
            said = shown_on(sys.stderr)(event.message)
            sys.stderr.write(f"tai: {event.level}: {said}\n")
    return opened
