"""Questions from running blocks, asked at the terminal: the plain command line's answer
to ``PromptRequested``.

When standard input and standard error are a terminal (or the terminal UI is shown, which
asks in dialogs of its own), ``tai`` (the default command) and ``tai ai`` run their
runtime as one whose questions are answered (``answers_prompts``),
and :func:`answering` asks each question of the session on the terminal while a turn
runs: a confirmation as ``[y/N]``, a choice among numbered options, a line of text. The
question's text comes from a block — a model's shell command, say — so it is shown with
:func:`~tai_core._printable.printable`: no escape sequence of it reaches the terminal.

The terminal is read on a daemon thread: a question still open when the turn is cancelled
(Ctrl-C, or its default taken after the runtime's timeout) must not keep tai from exiting.
End of input or Ctrl-C at the question answers with its default, which is the safe one.
Elsewhere (a pipe, a script, CI) nothing is asked and every question takes its default at
once.

While a chat's turn runs (:func:`typing_held`), the terminal does not echo what is typed:
the reply streams undisturbed, and the text waits in the terminal's input for the next
prompt, which shows it. A question asks with the echo back on, and with what was typed
ahead dropped first: a line typed for the next prompt must not answer whether a command
runs.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import click

from tai_core._printable import printable, printable_lines
from tai_core.runtime import PromptRequested, RespondToPrompt, Runtime


def on_terminal() -> bool:
    """Whether questions can be asked here: standard input and standard error are a
    terminal."""
    return sys.stdin.isatty() and sys.stderr.isatty()


def answers_questions(*, tui: bool, cli: bool) -> bool:
    """Whether a run's questions are answered: by the terminal UI's dialogs when it is
    shown (whatever standard error is), else on the terminal (:func:`on_terminal`)."""
    from tai_core.tui import wants_tui

    return wants_tui(tui, cli) or on_terminal()


@contextmanager
def _echoing(echo: bool, *, drop_typed: bool = False) -> Iterator[None]:
    """While inside, the terminal on standard input echoes what is typed (``echo``) or
    not, and when ``drop_typed`` what was typed before is dropped; nothing changes where
    standard input is no terminal."""
    import termios

    try:
        descriptor = sys.stdin.fileno()
        before = termios.tcgetattr(descriptor) if sys.stdin.isatty() else None
    except (OSError, ValueError, termios.error):  # closed, replaced, not a terminal
        before = None
    if before is None:
        yield
        return
    changed = list(before)
    changed[3] = before[3] | termios.ECHO if echo else before[3] & ~termios.ECHO
    if drop_typed:
        termios.tcflush(descriptor, termios.TCIFLUSH)
    termios.tcsetattr(descriptor, termios.TCSANOW, changed)
    try:
        yield
    finally:
        termios.tcsetattr(descriptor, termios.TCSANOW, before)


def typing_held() -> Any:
    """A context in which a chat's turn runs: what the user types is not echoed into the
    reply, and waits for the next prompt."""
    return _echoing(False)


def ask_terminal(question: PromptRequested) -> Any:
    """The user's answer to ``question``, read from the terminal (its default on end of
    input or Ctrl-C), with the echo on and what was typed ahead dropped."""
    with _echoing(True, drop_typed=True):
        return _ask(question)


def _ask(question: PromptRequested) -> Any:
    message = printable_lines(question.message)
    try:
        if question.kind == "confirm":
            return click.confirm(message, default=bool(question.default), err=True)
        if question.kind == "select":
            choice = click.Choice([printable(choice) for choice in question.choices])
            shown = printable(str(question.default)) if question.default is not None else None
            answer = click.prompt(message, type=choice, default=shown, err=True)
            return question.choices[choice.choices.index(answer)]
        default = "" if question.default is None else str(question.default)
        return click.prompt(message, default=default, show_default=bool(default), err=True)
    except (click.Abort, EOFError, KeyboardInterrupt):
        click.echo("", err=True)
        return question.default


def _asked(question: PromptRequested) -> asyncio.Future[Any]:
    """``ask_terminal(question)`` on a daemon thread, as a future of the running loop."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[Any] = loop.create_future()

    def read() -> None:
        result = ask_terminal(question)
        loop.call_soon_threadsafe(lambda: answer.done() or answer.set_result(result))

    threading.Thread(target=read, name="tai-question", daemon=True).start()
    return answer


async def _answer(runtime: Runtime, session_id: str) -> None:
    subscription = runtime.bus.subscribe()
    try:
        async for event in subscription:
            if isinstance(event, PromptRequested) and event.session_id == session_id:
                answer = await _asked(event)
                runtime.handle(RespondToPrompt(session_id, event.prompt_id, answer))
    finally:
        subscription.close()


@asynccontextmanager
async def answering(
    runtime: Runtime, session_id: str, front_end: Any = None
) -> AsyncIterator[None]:
    """While inside, the questions of session ``session_id`` are asked on the terminal
    (when its runtime answers questions at all, and the ``front_end`` following the run
    does not answer them itself: the terminal UI asks in a dialog)."""
    if not runtime.prompts.answered or getattr(front_end, "answers_prompts", False):
        yield
        return
    task = asyncio.get_running_loop().create_task(_answer(runtime, session_id))
    try:
        yield
    finally:
        task.cancel()
