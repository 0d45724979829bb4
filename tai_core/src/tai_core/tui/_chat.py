"""``tai ai`` in the terminal UI: the chat's input under the tabs, each line a command.

A line is what the plain chat makes of it (:mod:`tai_core.commands._chat`), sent as runtime
commands: text submits a turn — or, while a reply streams, steers it — ``/reload``,
``/compact`` and the plugins' and agent commands run (their output is shown under the
command's name in the Output tab, and in Logs; an agent command's text is submitted once
the switch is made). Esc cancels the reply in
flight, Ctrl-C too (and leaves when none is), Ctrl-D on an empty line leaves. The session
is closed when the UI is, so ``tai ai -continue`` takes it up again.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any

from tai_core._printable import printable, printable_lines
from tai_core.runtime import (
    ActivateAgent,
    Cancel,
    CloseSession,
    Command,
    RespondToPrompt,
    RunFailed,
    RunFinished,
    Runtime,
    SessionLoaded,
    SessionStarted,
    Steer,
    Submit,
)
from tai_core.runtime._extensions import typed_command
from tai_core.tui._app import TaiApp
from tai_core.tui._state import LEAVE_COMMANDS, UiState, not_kept


def _said_on_stderr(state: UiState, events: Any = ()) -> None:
    """The errors of the opening, on standard error (no UI came up)."""
    for event in events:
        state.apply(event)
    for level, message in state.logs:
        if level == "error":
            sys.stderr.write(f"tai: error: {printable(message)}\n")


class ChatLine:
    """What a line typed in the chat does, as runtime commands."""

    def __init__(self, runtime: Runtime, state: UiState, first_text: Callable[[str], str],
                 first: bool) -> None:  # fmt: skip
        self.runtime = runtime
        self.state = state
        self.session_id = state.session_id
        self.first_text = first_text
        self.first = first
        #: Whether a turn was submitted.
        self.asked = False

    def __call__(self, line: str, running: bool) -> None:
        """Act on ``line``; ``running``: a reply streams now (the line steers it)."""
        runtime, session_id = self.runtime, self.session_id
        if line.startswith("/"):
            self._command(line)
        elif running:
            self.state.prompted = line  # shown above the attempt it starts
            runtime.handle(Steer(session_id, line))
        else:
            text = self.first_text(line) if self.first else line
            self.first = False
            self.state.prompted = line  # shown above the reply it starts
            runtime.handle(Submit(session_id, text, line))
            self.asked = True

    def _command(self, line: str) -> None:
        runtime, session_id = self.runtime, self.session_id
        command = typed_command(runtime.extensions.agents, session_id, line)
        self.state.commanded = line.split(maxsplit=1)[0]  # a refusal is shown where typed
        runtime.handle(command)  # a switch is carried out at once: AgentActivated, or an error
        switched = isinstance(command, ActivateAgent) and command.name and (
            runtime.agent(session_id) == command.name)  # fmt: skip
        if switched and command.arguments:
            self(command.arguments, running=False)


async def chat_in_tui(
    runtime: Runtime,
    opening: Command,
    session_id: str,
    *,
    first_text: Callable[[str], str],
    thoughts: bool = False,
    agent: str = "",
    text: str = "",
    on_open: Callable[[], None] | None = None,
    **app_options: Any,
) -> int:
    """Open the session with ``opening`` (``on_open`` is called once it is open, before the
    UI comes up) and chat in the terminal UI until the user leaves,
    switched to the agent command ``agent`` first when one is named, and ``text`` sent
    first when given; the exit status (1 when the session could not be opened, the agent
    not switched to, or a turn failed)."""
    subscription = runtime.bus.subscribe()
    runtime.handle(opening)
    await runtime.settle()
    state = UiState(session_id)
    started = loaded = False
    for event in subscription.take_pending():
        state.apply(event)
        started = started or isinstance(event, SessionStarted)
        loaded = loaded or isinstance(event, SessionLoaded)
    if not (started or loaded):
        _said_on_stderr(state)
        return 1
    if on_open is not None:
        on_open()
    line = ChatLine(runtime, state, first_text, first=not loaded)
    failed: list[bool] = []
    answered: list[bool] = []
    app = TaiApp(
        state, lambda: runtime.handle(Cancel(session_id)),
        lambda prompt_id, answer: runtime.handle(RespondToPrompt(session_id, prompt_id, answer)),
        thoughts=thoughts, chat=lambda text: app.application.exit()
        if text.strip() in LEAVE_COMMANDS else line(text, state.running is not None),
        **app_options,
    )  # fmt: skip
    app.invalidate()

    async def feed() -> None:
        async for event in subscription:
            if state.apply(event):
                failed.append(isinstance(event, RunFailed))
                answered.append(isinstance(event, RunFinished))
                app.invalidate()

    if agent:
        line(f"/agent {agent} {text}".rstrip(), running=False)
        if not runtime.agent(session_id):  # the switch was refused: say why, as the CLI does
            _said_on_stderr(state, subscription.take_pending())
            runtime.handle(CloseSession(session_id))
            await runtime.settle()
            return 1
    elif text.strip():
        line(text, running=False)
    feeding = asyncio.get_running_loop().create_task(feed())
    app.show_tab(1)  # the conversation
    try:
        await app.application.run_async()
    finally:
        feeding.cancel()
        subscription.close()
        runtime.handle(CloseSession(session_id))
        await runtime.settle()
    _leave_conversation(state)
    if not loaded and line.asked and not any(answered) and runtime.keeper.keeps:
        sys.stderr.write(not_kept(session_id) + "\n")  # the opening said it would be kept
    return 1 if any(failed) else 0


def _leave_conversation(state: UiState) -> None:
    """The conversation stays on the terminal, as in the CLI: each turn's prompt and
    answers, a cancel where it was, a failure on standard error in its place."""
    for section in state.sections:
        if section.command:  # a command's output is no part of it
            continue
        if section.prompt:
            sys.stdout.write(f">> {section.prompt}\n")
        if section.readable.strip():
            sys.stdout.write(printable_lines(section.readable).rstrip("\n") + "\n")
        if section.cancelled:
            sys.stdout.write("(cancelled)\n")
        if section.error:  # in its place: the status 1 says why
            sys.stdout.flush()
            sys.stderr.write(f"tai: error: {printable_lines(section.error)}\n")
            sys.stderr.flush()
    sys.stdout.flush()
