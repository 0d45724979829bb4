"""Following a run in the terminal UI, in place of the plain printer.

:class:`TuiFollower` has the printer's protocol (``follow(subscription, session_id)``, then
``outcome``), so a command swaps one for the other and nothing else changes. While the UI
is up, what would be written to standard output or standard error (a plugin's warning, a
stray print) goes to the Logs tab instead of tearing the screen. The UI stays after the
run ends, for reading the tree, until ``q``; then, on the normal screen, the model's
reply is written to standard output, each block's result in short to standard error, and
the plain printer writes what it writes at a run's end — the diff, the report, the error
or what a cancel left — so the terminal keeps what the plain command line would have
shown.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import sys
from typing import Any

from tai_core.runtime import BlockFinished, Cancel, RespondToPrompt, Runtime, Subscription
from tai_core.tui._app import TaiApp
from tai_core.tui._state import UiState

#: Seconds between redraws while something runs (its elapsed time moves).
TICK = 0.5


class _ToLogs(io.TextIOBase):
    """A text stream whose lines become log records of ``state``."""

    def __init__(self, state: UiState, level: str, redraw: Any) -> None:
        self.state = state
        self.level = level
        self.redraw = redraw
        self._partial = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        for line in lines:
            if line.strip():
                self.state.logs.append((self.level, line))
        if lines:
            self.redraw()
        return len(text)


class TuiFollower:
    """Shows one session's run in the terminal UI; ``printer`` (the plain printer:
    ``track`` and ``finish``) keeps what the end reports and writes it."""

    def __init__(self, runtime: Runtime, printer: Any, *, thoughts: bool = False,
                 linger: bool = True, **app_options: Any) -> None:  # fmt: skip
        self.runtime = runtime
        self.printer = printer
        self.thoughts = thoughts
        #: Whether the UI stays after the run until ``q`` (a goal loop's closes by itself:
        #: the next loop follows).
        self.linger = linger
        self.app_options = app_options

    #: It answers the blocks' questions itself, in a dialog (the terminal's answerer stays
    #: out: the screen is the UI's).
    answers_prompts = True

    @property
    def outcome(self) -> Any:
        """The run's terminal event, once it came."""
        return self.printer.outcome

    async def follow(self, subscription: Subscription, session_id: str) -> None:
        """Run the UI until the run has ended and the user leaves."""
        state = UiState(session_id)
        app = TaiApp(
            state, lambda: self.runtime.handle(Cancel(session_id)),
            lambda prompt_id, answer: self.runtime.handle(
                RespondToPrompt(session_id, prompt_id, answer)
            ),
            thoughts=self.thoughts, **self.app_options,
        )  # fmt: skip

        finished: list[BlockFinished] = []

        async def feed() -> None:
            async for event in subscription:
                if getattr(event, "session_id", "") == session_id:
                    # every event of the run, the UI's or not: what reached the disk
                    # (ChangesWritten) is named by the last line after a cancel
                    self.printer.track(event)
                if not state.apply(event):
                    continue
                if isinstance(event, BlockFinished):
                    finished.append(event)
                app.invalidate()
                leave_if_done()

        def leave_if_done(_: Any = None) -> None:
            done = state.outcome is not None and (app.quitting or not self.linger)
            running = app.application.is_running and not app.application.future.done()
            if done and running:
                app.application.exit()

        async def tick() -> None:
            while True:
                await asyncio.sleep(TICK)
                if state.running is not None:
                    app.application.invalidate()

        app.application.after_render += leave_if_done  # an end before the first frame
        tasks = [asyncio.get_running_loop().create_task(work) for work in (feed(), tick())]
        streams = (
            _ToLogs(state, "output", app.invalidate),
            _ToLogs(state, "stderr", app.invalidate),
        )
        try:
            with contextlib.redirect_stdout(streams[0]), contextlib.redirect_stderr(streams[1]):
                await app.application.run_async()
        finally:
            for task in tasks:
                task.cancel()
        reply = "".join("".join(section.text) for section in state.sections)
        if reply.strip():  # what the plain printer would have left on standard output
            self.printer.out.write(reply if reply.endswith("\n") else reply + "\n")
            self.printer.out.flush()
        for event in finished:  # and on standard error: each block's result, in short
            self.printer.show(event)
        if state.outcome is not None:
            self.printer.finish(state.outcome)
        sys.stderr.flush()
