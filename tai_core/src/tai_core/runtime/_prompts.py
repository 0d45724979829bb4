"""Questions to the user from a running block or plugin, answered through the runtime.

A block runs in a worker thread; when it asks (``tai_core.blocks.ask``: confirm, select or
input) the thread waits while the question goes out as :class:`PromptRequested` and comes
back as the command ``RespondToPrompt`` from whichever client answers first — a dialog in
a terminal UI, a line in ``tai serve -stdio``. The asking side never hangs on a run that
cannot answer: a runtime whose front-end does not answer prompts (a batch run) gives the
question's default at once; an unanswered question gives its default after ``timeout``; a
cancelled turn gives the defaults of its open questions, and so does the end of the
front-end's input (:meth:`Prompts.close`: nobody is left to answer). So the default is the
safe answer, and the asker chooses it (``False`` for "delete build/?").
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
from collections.abc import Callable, Sequence
from typing import Any

from tai_core.events import Notice, PromptAnswered, PromptRequested
from tai_core.runtime._bus import EventBus
from tai_core.runtime._commands import RespondToPrompt

#: The kinds of question, and what an answer of each must be.
KINDS = {"confirm": "true or false", "select": "one of the choices", "input": "a string"}


class Prompts:
    """The open questions of a runtime's sessions."""

    def __init__(self, bus: EventBus, *, answered: bool, timeout: float = 600.0) -> None:
        self.bus = bus
        #: Whether the front-end answers questions (else every one gets its default).
        self.answered = answered
        self.timeout = timeout
        self.loop: asyncio.AbstractEventLoop | None = None
        self._open: dict[str, tuple[str, PromptRequested, concurrent.futures.Future[Any]]] = {}
        self._numbers = itertools.count(1)
        #: Sessions whose turn was cancelled: their blocks' questions get the defaults.
        self._cancelled: set[str] = set()

    def asker(self, session_id: str) -> Callable[[str, str, Sequence[str], Any], Any]:
        """How a block of session ``session_id`` asks (from its worker thread)."""

        def ask(kind: str, message: str, choices: Sequence[str], default: Any) -> Any:
            return self._ask(session_id, kind, message, tuple(choices), default)

        return ask

    def _ask(self, session_id: str, kind: str, message: str, choices: tuple[str, ...],
             default: Any) -> Any:  # fmt: skip
        if kind not in KINDS or (kind == "select" and not choices):
            raise ValueError(f"a question is confirm, select (with choices) or input, not {kind!r}")
        loop = self.loop
        if not self.answered or loop is None or session_id in self._cancelled:
            return default
        prompt_id = f"{session_id}-q{next(self._numbers)}"
        asked = PromptRequested(session_id, prompt_id, kind, message, choices, default)
        answer: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._open[prompt_id] = (session_id, asked, answer)
        loop.call_soon_threadsafe(self.bus.publish, asked)
        try:
            return answer.result(timeout=self.timeout)
        except concurrent.futures.TimeoutError:
            note = f"no answer to {message!r} in {self.timeout:g} s: took {default!r}"
            loop.call_soon_threadsafe(self.bus.publish, Notice(session_id, "warning", note))
            return default
        except concurrent.futures.CancelledError:
            if not self.answered:  # closed: say so, as a timeout does
                note = f"no answer to {message!r}: the input ended; took {default!r}"
                loop.call_soon_threadsafe(self.bus.publish, Notice(session_id, "warning", note))
            return default
        finally:
            self._open.pop(prompt_id, None)

    def respond(self, command: RespondToPrompt) -> None:
        """Answer an open question (on the loop's thread)."""
        found = self._open.get(command.prompt_id)
        if found is None or found[0] != command.session_id:
            self.bus.publish(Notice(command.session_id, "error",
                                    f"no open question {command.prompt_id!r}"))  # fmt: skip
            return
        _, asked, answer = found
        problem = _wrong(asked, command.answer)
        if problem:
            self.bus.publish(Notice(command.session_id, "error", problem))
            return
        if answer.done():
            return
        answer.set_result(command.answer)
        self.bus.publish(PromptAnswered(command.session_id, command.prompt_id, command.answer))

    def cancel(self, session_id: str) -> int:
        """Give every open question of session ``session_id``, and every one its turn asks
        from now on, its default (the turn is being cancelled); how many were open."""
        self._cancelled.add(session_id)
        open_now = [answer for owner, _, answer in self._open.values() if owner == session_id]
        for answer in open_now:
            answer.cancel()
        return len(open_now)

    def close(self) -> None:
        """Nobody can answer any more (the front-end's input ended): every open question,
        and every one asked from now on, gets its default."""
        self.answered = False
        for _, _, answer in list(self._open.values()):
            answer.cancel()

    def reopen(self, session_id: str) -> None:
        """Let the questions of session ``session_id``'s next turn be answered."""
        self._cancelled.discard(session_id)


def _wrong(asked: PromptRequested, answer: Any) -> str:
    """Why ``answer`` does not answer ``asked`` (``""`` when it does)."""
    fits = {
        "confirm": isinstance(answer, bool),
        "select": answer in asked.choices,
        "input": isinstance(answer, str),
    }[asked.kind]
    return "" if fits else f"the answer to {asked.prompt_id!r} must be {KINDS[asked.kind]}"
