"""Goal loops: fresh sessions until the model's ``done`` is confirmed by a second look.

THEORY_OF_GOAL_LOOPS: a long conversation drifts and its context goes stale; a loop that
starts afresh — context collected again from the files as they now are, a new session —
sees the work as it really stands. So the default command in a Go module runs the task as
up to 20 loops. A ``done`` block is only a claim: the next loop gets the task again with a
note to re-read the files and confirm, and only a second consecutive ``done`` ends the
run ("Goal achieved"). A failed loop's error, or blocks it left malformed, become the next
loop's feedback; the same error three times in a row stops the run. A pending ``done`` at
the last loop earns one extra loop to confirm it.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from typing import Any, TextIO

import attrs

from tai_core.blocks import Block

#: Loops at most (a pending ``done`` at the end earns one more).
MAX_LOOPS = 20
#: The same error this many loops in a row ends the run.
SAME_ERROR_LIMIT = 3

VERIFY_NOTE = (
    "The previous loop declared the goal done. Verify it: re-read the files that matter "
    "(fetch their source), run the tests, and either confirm with a done block again or "
    "continue the work."
)


@attrs.frozen
class LoopResult:
    """How one loop ended: ``outcome`` is ``finished``, ``failed``, ``cancelled`` or
    ``stopped`` (the run cannot go on, e.g. no context: already said, never retried)."""

    outcome: str
    message: str = ""
    remaining: tuple[Block, ...] = ()
    parse_errors: tuple[str, ...] = ()


RunLoop = Callable[[int, str], Awaitable[LoopResult]]


@attrs.frozen
class GoalResult:
    """How the loops ended, and the exit status for the command line."""

    achieved: bool
    loops: int
    exit_code: int


def _feedback_after(result: LoopResult) -> str:
    if result.outcome == "failed":
        return f"The previous loop failed: {result.message}\nFix the cause and continue."
    if result.parse_errors:
        return (
            "These blocks of the previous loop could not be used; re-emit only them, "
            "corrected:\n\n" + "\n\n".join(result.parse_errors)
        )
    return ""


async def run_goal(
    run_loop: RunLoop,
    *,
    max_loops: int = MAX_LOOPS,
    err: TextIO | None = None,
) -> GoalResult:
    """Run loops with ``run_loop(number, feedback)`` until the goal is confirmed."""
    out = err or sys.stderr
    feedback = ""
    pending_done = False
    last_error = ""
    same_error = 0
    loop = 0
    while loop < max_loops or (pending_done and loop == max_loops):
        loop += 1
        shown_total = max_loops + (1 if loop > max_loops else 0)
        out.write(f"=== Goal Loop {loop}/{shown_total} ===\n")
        out.flush()
        result = await run_loop(loop, VERIFY_NOTE if pending_done else feedback)
        if result.outcome == "cancelled":
            return GoalResult(False, loop, 130)
        if result.outcome == "stopped":
            return GoalResult(False, loop, 1)
        if result.outcome == "failed":
            same_error = same_error + 1 if result.message == last_error else 1
            last_error = result.message
            if same_error >= SAME_ERROR_LIMIT:
                out.write(f"tai: the same error ended {same_error} loops in a row; stopping\n")
                return GoalResult(False, loop, 1)
        else:
            last_error, same_error = "", 0
        said_done = any(block.kind == "done" for block in result.remaining)
        feedback = _feedback_after(result)
        if feedback or not said_done:
            pending_done = False
            continue
        if pending_done:
            out.write(f"Goal Achieved after {loop} loop(s)\n")
            return GoalResult(True, loop, 0)
        pending_done = True
    out.write(f"tai: the goal was not confirmed within {max_loops} loops\n")
    return GoalResult(False, loop, 1)


def loop_result(event: Any, state: Any) -> LoopResult:
    """The :class:`LoopResult` of a session from its terminal event and final state."""
    from tai_core.runtime import RunCancelled, RunFailed

    if isinstance(event, RunCancelled):
        return LoopResult("cancelled")
    if isinstance(event, RunFailed):
        return LoopResult("failed", event.message)
    errors = tuple(error.message() for error in getattr(state, "parse_errors", ()))
    return LoopResult("finished", remaining=tuple(event.remaining), parse_errors=errors)
