"""The plain command-line client: prints a run's events as they arrive.

The reply text goes to stdout as it streams, so ``tai next … | tee answer.md`` captures the
answer and nothing else; everything about the run — block results, notices, retries, the
usage table, the final error — goes to stderr. To a terminal or a pipe the text streams
as it comes (a reader follows it); to a file (``> answer.md``) each attempt's text is held
until the attempt has ended, and an attempt that is retried (cut short, without a summary,
its blocks unusable) leaves nothing there: the file holds the answer once, not once per
attempt. It is one client of the event bus among
others and keeps no state beyond what it needs to lay lines out.

What a model or its blocks wrote reaches a terminal with every control character escaped
(``tai_core._printable.shown_on``): an escape sequence in a reply must not set the
clipboard, retitle the window or clear the screen. A file or a pipe gets it unchanged.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
from typing import TextIO

from tai_core._printable import shown_on
from tai_core.commands._answers import UnwrappedAnswers
from tai_core.runtime import (
    BlockFinished,
    BlockStarted,
    ChangesWritten,
    Event,
    Notice,
    RoundEnded,
    RoundStarted,
    RunCancelled,
    RunFailed,
    RunFinished,
    Subscription,
    TextReceived,
    ThoughtReceived,
    ThoughtSummarized,
)

#: Lines of a block result shown; the model gets it all, the terminal a glimpse.
RESULT_LINES = 12


def _is_file(stream: TextIO) -> bool:
    """Whether ``stream`` writes to a regular file (not a terminal, a pipe or a socket)."""
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError, io.UnsupportedOperation):
        return False  # a stream of no file (a test's StringIO): as a pipe


class Printer:
    """Renders events to ``out`` (the reply) and ``err`` (everything else)."""

    def __init__(
        self,
        out: TextIO | None = None,
        err: TextIO | None = None,
        *,
        thoughts: bool = False,
        report: bool = True,
        unwrap: frozenset[str] = frozenset(),
    ) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        #: Text from outside tai as it may be written to ``out`` and to ``err``.
        self._out_text = shown_on(self.out)
        self._err_text = shown_on(self.err)
        self.thoughts = thoughts
        #: Print the usage table when the run ends (a chat prints none after each turn).
        self.report = report
        #: Blocks of these kinds are printed without their first and closing lines
        #: (``_answers``).
        self._answers = UnwrappedAnswers(unwrap) if unwrap else None
        self._line_open = False
        #: The terminal event of the run, once it came.
        self.outcome: RunFinished | RunFailed | RunCancelled | None = None
        #: What reached the disk, round by round, the rounds whose blocks began to run, and
        #: the round running now.
        self.written: dict[int, tuple[str, ...]] = {}
        self.ran: set[int] = set()
        self.round = 0
        #: The attempt's text, held back from a file until the attempt ends.
        self._held: list[str] | None = [] if _is_file(self.out) else None

    def _end_line(self) -> None:
        if self._line_open:
            self._write("\n")
            self._line_open = False

    def _write(self, text: str) -> None:
        """Reply text to ``out``: now on a terminal, when the attempt ends elsewhere."""
        if self._held is None:
            self._emit(text)
        else:
            self._held.append(text)

    def _release(self, keep: bool) -> None:
        """The attempt has ended: what was held goes out (``keep``) or is dropped."""
        if self._held:
            if keep:
                self._emit("".join(self._held))
            self._held.clear()

    def _emit(self, text: str) -> None:
        """``text`` to ``out``. When its reader went away (``tai … | head``), the rest of
        the reply goes nowhere and the run goes on: its end, an error included, is still
        said on ``err`` and in the exit status (a write that failed ended tai silently)."""
        try:
            self.out.write(text)
            self.out.flush()
        except BrokenPipeError:
            with contextlib.suppress(OSError, ValueError):  # a stream without a descriptor
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, self.out.fileno())  # the buffer's flush, at exit too
                os.close(devnull)

    def show(self, event: Event) -> None:
        """Render one event."""
        if isinstance(event, TextReceived):
            text = self._answers.feed(event.text) if self._answers else event.text
            if text:
                self._write(self._out_text(text))
                self._line_open = not text.endswith("\n")
        elif isinstance(event, ThoughtReceived):
            if self.thoughts:
                self.err.write(self._err_text(event.text))
        elif isinstance(event, ThoughtSummarized):
            self._end_line()
            self.err.write(self._err_text(f"[thought summary] {event.summary.strip()}") + "\n")
        elif isinstance(event, ChangesWritten | BlockStarted):
            self.track(event)
        elif isinstance(event, RoundEnded):
            if event.outcome == "retry" and self._held:
                self._line_open = False
                self.err.write("(the retried attempt's text is left out of standard output)\n")
            self._release(keep=event.outcome != "retry")
        elif isinstance(event, RoundStarted):
            # a line between rounds and attempts of this run (a chat's turn starts at the
            # session's next round: no line before it)
            if self.round or event.attempt > 1:
                self._end_line()
                self.err.write(f"--- round {event.round}, attempt {event.attempt} ---\n")
            self.track(event)
        elif isinstance(event, BlockFinished):
            self._end_line()
            status = "ok" if event.result.ok else "failed"
            lines = event.result.text.splitlines()
            self.err.write(self._err_text(f"[{event.block.kind} {status}]") + "\n")
            for line in lines[:RESULT_LINES]:
                self.err.write(f"  {self._err_text(line)}\n")
            if len(lines) > RESULT_LINES:
                self.err.write(f"  … ({len(lines) - RESULT_LINES} more lines sent to the model)\n")
        elif isinstance(event, Notice):
            self._end_line()
            self.err.write(f"tai: {event.level}: {self._err_text(event.message)}\n")
        elif isinstance(event, RunFinished | RunFailed | RunCancelled):
            self.finish(event)
        self.err.flush()

    def track(self, event: Event) -> None:
        """Keep what the end of a run reports (what reached the disk, the round), without
        writing anything: for a front-end that shows the run itself (the terminal UI)."""
        if isinstance(event, ChangesWritten):
            self.written[event.round] = (*self.written.get(event.round, ()), *event.paths)
        elif isinstance(event, BlockStarted):
            self.ran.add(event.round)
        elif isinstance(event, RoundStarted):
            self.round = event.round

    def finish(self, event: RunFinished | RunFailed | RunCancelled) -> None:
        """Write the end of the run: the rest of the reply, the diff, the report, and the
        error or what a cancel left."""
        if self._answers is not None and (rest := self._answers.flush()):
            self._write(self._out_text(rest))
            self._line_open = not rest.endswith("\n")
        self._end_line()
        self._release(keep=True)  # the last attempt's, however the run ended
        self.outcome = event
        if isinstance(event, RunFinished) and event.diff:
            self.err.write(event.diff.rstrip("\n") + "\n")
        if event.report and self.report:
            self.err.write("\n" + event.report + "\n")
        if isinstance(event, RunFailed):
            self.err.write(f"tai: error: {self._err_text(event.message)}\n")
        elif isinstance(event, RunCancelled):
            self.err.write(f"tai: cancelled; {self._err_text(self.cancelled_state())}\n")

    def cancelled_state(self) -> str:
        """Exactly what reached the disk before a cancel, for its last line."""
        said = [
            f"round {number}'s changes were written: {', '.join(paths)}"
            for number, paths in sorted(self.written.items())
        ]
        if self.round in self.written:
            said.append(f"round {self.round}'s blocks were stopped")
        elif self.round in self.ran:  # a round that wrote nothing before its programs
            said.append(
                f"round {self.round}'s blocks were stopped (what its programs wrote stays: "
                "tai undo brings the tree back)"
            )
        elif self.round:
            said.append(f"nothing of round {self.round} was applied")
        return "; ".join(said) or "nothing was applied"

    async def follow(self, subscription: Subscription, session_id: str) -> None:
        """Render events until the session's run has ended."""
        async for event in subscription:
            self.show(event)
            if self.outcome is not None and getattr(event, "session_id", None) == session_id:
                return
