"""Goal loops: fresh sessions until the model's ``done`` is confirmed by a second look.

THEORY_OF_GOAL_LOOPS: a long conversation drifts and its context goes stale; a loop that
starts afresh — context collected again from the files as they now are, a new session —
sees the work as it really stands. So the default command in a Go module runs the task as
up to 20 loops. A ``done`` block is only a claim: the next loop gets the task again with a
note to re-read the files and confirm, and only a second consecutive ``done`` ends the
run ("Goal achieved"). A failed loop's error, or blocks it left malformed, become the next
loop's feedback; the same error three times in a row stops the run (the same once its
numbers and ids are set aside: a request id or a log file's time stamp does not make an
error new). A pending ``done`` at
the last loop earns one extra loop to confirm it.

Loops must make progress: a fresh loop over unchanged files repeats the last one, and a
model that never says ``done`` would spend every loop on the same request. So a loop that
ended without ``done`` is followed by feedback saying what it changed (the files, and the
diff of its change blocks: two loops that change one function differently are told so) —
or that it changed no file, which a second time in a row ends the run (exit status 1). Every
feedback differs from the one before it (a repeated error is counted), so together with
the files the same first request is never sent twice in a row; the command checks that
too (:mod:`tai_core.commands._code`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TextIO

import attrs

from tai_core.blocks import Block
from tai_core.tree import NodeKind, NodeSpec

#: Loops at most (a pending ``done`` at the end earns one more).
MAX_LOOPS = 20
#: The same error this many loops in a row ends the run.
SAME_ERROR_LIMIT = 3
#: Loops in a row that changed no file and did not say ``done`` before the run ends.
IDLE_LIMIT = 2
#: The parts of an error message that differ between occurrences of one error.
_VARYING = re.compile(r"\b[0-9a-fA-F-]{8,}\b|\d+")
#: Changed files named in the feedback at most.
NAMED_CHANGES = 20
#: Lines of the previous loop's diff the feedback shows at most.
DIFF_LINES = 60

VERIFY_NOTE = (
    "The previous loop declared the goal done. Verify it: re-read the files that matter "
    "(fetch their source), run the tests, and either confirm with a done block again or "
    "continue the work."
)


@attrs.frozen
class LoopResult:
    """How one loop ended: ``outcome`` is ``finished``, ``failed``, ``cancelled``,
    ``stopped`` (the run cannot go on — no context, a disk that refused the changes: already
    said, never retried) or ``unusable`` (as stopped, for a mistake of the command line or
    the configuration, such as a pattern that names nothing: exit status 2)."""

    outcome: str
    message: str = ""
    remaining: tuple[Block, ...] = ()
    parse_errors: tuple[str, ...] = ()
    #: The files the loop changed (relative paths, sorted).
    changed: tuple[str, ...] = ()
    #: The unified diff of the loop's change blocks (what programs changed is not in it).
    diff: str = ""


RunLoop = Callable[[int, str], Awaitable[LoopResult]]

#: The exit status of a run that ended with a loop of each outcome.
EXIT_STATUSES = {"finished": 0, "failed": 1, "stopped": 1, "unusable": 2, "cancelled": 130}


@attrs.frozen
class GoalResult:
    """How the loops ended, and the exit status for the command line."""

    achieved: bool
    loops: int
    exit_code: int


def error_shape(message: str) -> str:
    """``message`` with what varies between two occurrences of one error — numbers,
    request ids, time stamps in file names — replaced, so the same error counts as the
    same though its details differ."""
    return _VARYING.sub("#", message)


def _changes_note(result: LoopResult, said_done: bool) -> str:
    if said_done:
        return ""
    if not result.changed:
        return (
            "The previous loop changed no file and did not write a done block. If the task "
            "is done, verify it and write a done block; otherwise make the changes it needs "
            "now. Another loop that changes nothing ends the run."
        )
    names = ", ".join(result.changed[:NAMED_CHANGES])
    more = len(result.changed) - NAMED_CHANGES
    names += f" and {more} more" if more > 0 else ""
    note = (
        f"The previous loop changed {names} and did not write a done block. Continue the "
        "task from the files as they are now; when all of it is done and verified, write a "
        "done block."
    )
    lines = result.diff.splitlines()
    if not lines:
        return note
    shown = "\n".join(lines[:DIFF_LINES])
    rest = (
        f"\n({len(lines) - DIFF_LINES} more lines of the diff)" if len(lines) > DIFF_LINES else ""
    )
    return f"{note}\n\nIts change blocks changed:\n```diff\n{shown}\n```{rest}"


def _feedback_after(result: LoopResult, said_done: bool, same_error: int) -> str:
    if result.outcome == "failed":
        repeated = f" (the same error {same_error} loops in a row)" if same_error > 1 else ""
        return f"The previous loop failed{repeated}: {result.message}\nFix the cause and continue."
    notes = [_changes_note(result, said_done)]
    if result.parse_errors:
        notes.append(
            "These blocks of the previous loop could not be used; re-emit only them, "
            "corrected:\n\n" + "\n\n".join(result.parse_errors)
        )
    return "\n\n".join(note for note in notes if note)


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
    same_error = idle = 0
    loop = 0
    while loop < max_loops or (pending_done and loop == max_loops):
        loop += 1
        shown_total = max_loops + (1 if loop > max_loops else 0)
        out.write(f"=== Goal Loop {loop}/{shown_total} ===\n")
        out.flush()
        result = await run_loop(loop, VERIFY_NOTE if pending_done else feedback)
        if result.outcome in ("cancelled", "stopped", "unusable"):
            return GoalResult(False, loop, EXIT_STATUSES[result.outcome])
        said_done = any(block.kind == "done" for block in result.remaining)
        if result.outcome == "failed":
            shape = error_shape(result.message)
            same_error = same_error + 1 if shape == last_error else 1
            last_error = shape
            if same_error >= SAME_ERROR_LIMIT:
                out.write(
                    f"tai: error: the same error ended {same_error} loops in a row; stopping\n"
                )
                return GoalResult(False, loop, 1)
        else:
            last_error, same_error = "", 0
            idle = 0 if said_done or result.changed else idle + 1
            if idle >= IDLE_LIMIT:
                out.write(
                    f"tai: error: {idle} loops in a row changed no file and did not say done; "
                    "stopping\n"
                )
                return GoalResult(False, loop, 1)
        feedback = _feedback_after(result, said_done, same_error)
        if result.outcome == "failed" or result.parse_errors or not said_done:
            pending_done = False
            continue
        if pending_done:
            out.write(f"Goal Achieved after {loop} loop(s)\n")
            return GoalResult(True, loop, 0)
        pending_done = True
    loops = f"{loop} loop{'s' if loop != 1 else ''}"
    out.write(f"tai: error: the goal was not confirmed within {loops}\n")
    return GoalResult(False, loop, 1)


def goal_node(loop: int, max_loops: int, feedback: str) -> NodeSpec:
    """The ``goal`` node a loop's session tree starts with: which loop it is, and what the
    loops before it came to (the feedback it was given), so that the tree a front-end shows
    tells the goal's story."""
    body = f"Goal loop {loop} of {max_loops}"
    if feedback.strip():
        body += f"\n\n{feedback.strip()}"
    verdict = "verify" if feedback.startswith(VERIFY_NOTE) else "continue" if loop > 1 else "start"
    facts = {"loop": str(loop), "loops": str(max_loops), "verdict": verdict}
    return NodeSpec(NodeKind.GOAL, body=body, attrs=facts)


def loop_result(
    event: Any, state: Any, changed: tuple[str, ...] = (), diff: str = ""
) -> LoopResult:
    """The :class:`LoopResult` of a session from its terminal event and final state;
    ``changed`` names the files it changed, ``diff`` is its change blocks' diff."""
    from tai_core.runtime import RunCancelled, RunFailed

    if isinstance(event, RunCancelled):
        return LoopResult("cancelled")
    if isinstance(event, RunFailed):
        outcome = "stopped" if event.final else "failed"  # the disk refused: no loop mends it
        return LoopResult(outcome, event.message, changed=changed, diff=diff)
    errors = tuple(error.message() for error in getattr(state, "parse_errors", ()))
    return LoopResult(
        "finished",
        remaining=tuple(event.remaining),
        parse_errors=errors,
        changed=changed,
        diff=diff,
    )
