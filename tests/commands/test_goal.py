"""The goal runner's rules: done confirmed by a second loop, feedback, limits."""

from __future__ import annotations

import asyncio
import io

from tai_core.blocks import Block
from tai_core.commands._goal import VERIFY_NOTE, LoopResult, run_goal

DONE = Block(kind="done", delimiter="W", params={}, body="all green", line=1, start=0, end=1)
#: A loop that changed a file and did not say done.
WORKED = LoopResult("finished", changed=("a.go",))
DONE_LOOP = LoopResult("finished", remaining=(DONE,))
IDLE_NOTE = "The previous loop changed no file and did not write a done block."


def scripted(*results: LoopResult):
    seen: list[tuple[int, str]] = []

    async def run_loop(number: int, feedback: str) -> LoopResult:
        seen.append((number, feedback))
        return results[number - 1]

    return run_loop, seen


def goal(run_loop, max_loops: int = 20):
    err = io.StringIO()
    result = asyncio.run(run_goal(run_loop, max_loops=max_loops, err=err))
    return result, err.getvalue()


def test_done_is_confirmed_by_the_next_loop() -> None:
    run_loop, seen = scripted(
        WORKED, LoopResult("finished", remaining=(DONE,)),
        LoopResult("finished", remaining=(DONE,)),
    )  # fmt: skip
    result, err = goal(run_loop)
    assert (result.achieved, result.loops, result.exit_code) == (True, 3, 0)
    assert [number for number, _ in seen] == [1, 2, 3] and seen[0][1] == ""
    assert seen[1][1].startswith("The previous loop changed a.go and did not write a done")
    assert seen[2][1] == VERIFY_NOTE
    assert "=== Goal Loop 1/20 ===" in err and "Goal Achieved after 3 loop(s)" in err


def test_a_done_not_repeated_is_not_achieved() -> None:
    run_loop, seen = scripted(
        LoopResult("finished", remaining=(DONE,)), LoopResult("finished"),
        LoopResult("finished", remaining=(DONE,)), LoopResult("finished", remaining=(DONE,)),
    )  # fmt: skip
    result, _ = goal(run_loop)
    assert result.achieved and result.loops == 4
    feedbacks = [feedback for _, feedback in seen]
    assert feedbacks[0] == "" and feedbacks[1] == feedbacks[3] == VERIFY_NOTE
    assert feedbacks[2].startswith(IDLE_NOTE)


def test_errors_are_fed_back_and_three_in_a_row_stop() -> None:
    run_loop, seen = scripted(
        LoopResult("failed", "boom"), LoopResult("failed", "boom"), LoopResult("failed", "boom"),
    )  # fmt: skip
    result, err = goal(run_loop)
    assert (result.achieved, result.loops, result.exit_code) == (False, 3, 1)
    assert seen[1][1].startswith("The previous loop failed: boom")
    assert seen[2][1].startswith("The previous loop failed (the same error 2 loops in a row): boom")
    assert "the same error ended 3 loops in a row" in err


def test_an_error_clears_a_pending_done() -> None:
    run_loop, seen = scripted(
        LoopResult("finished", remaining=(DONE,)), LoopResult("failed", "late failure"),
        LoopResult("finished", remaining=(DONE,)), LoopResult("finished", remaining=(DONE,)),
    )  # fmt: skip
    result, _ = goal(run_loop)
    assert result.achieved and result.loops == 4
    assert seen[2][1].startswith("The previous loop failed: late failure")


def test_uncorrected_parse_errors_are_fed_back() -> None:
    run_loop, seen = scripted(
        LoopResult("finished", remaining=(DONE,), parse_errors=("unclosed block at line 3",)),
        LoopResult("finished", remaining=(DONE,)), LoopResult("finished", remaining=(DONE,)),
    )  # fmt: skip
    result, _ = goal(run_loop)
    assert result.achieved and result.loops == 3
    assert "re-emit only them" in seen[1][1] and "unclosed block at line 3" in seen[1][1]


def test_a_pending_done_at_the_limit_earns_one_more_loop() -> None:
    run_loop, _ = scripted(
        WORKED, LoopResult("finished", remaining=(DONE,)),
        LoopResult("finished", remaining=(DONE,)),
    )  # fmt: skip
    result, err = goal(run_loop, max_loops=2)
    assert (result.achieved, result.loops) == (True, 3)
    assert "=== Goal Loop 3/3 ===" in err


def test_the_budget_runs_out() -> None:
    run_loop, _ = scripted(*[WORKED] * 3)
    result, err = goal(run_loop, max_loops=3)
    assert (result.achieved, result.exit_code) == (False, 1)
    assert "not confirmed within 3 loops" in err


def test_cancel_stops_at_once() -> None:
    run_loop, seen = scripted(LoopResult("cancelled"))
    result, _ = goal(run_loop)
    assert result.exit_code == 130 and len(seen) == 1


def test_a_loop_that_changed_nothing_is_told_and_a_second_ends_the_run() -> None:
    run_loop, seen = scripted(WORKED, LoopResult("finished"), LoopResult("finished"), WORKED)
    result, err = goal(run_loop)
    assert (result.achieved, result.loops, result.exit_code) == (False, 3, 1)
    assert seen[2][1].startswith(IDLE_NOTE) and "Another loop that changes nothing" in seen[2][1]
    assert err.splitlines()[-1] == (
        "tai: error: 2 loops in a row changed no file and did not say done; stopping"
    )


def test_a_loop_that_changed_something_resets_the_idle_count() -> None:
    idle = LoopResult("finished")
    run_loop, seen = scripted(idle, WORKED, idle, WORKED, idle, idle)
    result, _ = goal(run_loop)
    assert result.loops == 6 and result.exit_code == 1
    assert [feedback.startswith(IDLE_NOTE) for _, feedback in seen] == [
        False, True, False, True, False, True,
    ]  # fmt: skip


def test_many_changed_files_are_named_up_to_a_limit() -> None:
    many = LoopResult("finished", changed=tuple(f"f{i:02d}.go" for i in range(25)))
    run_loop, seen = scripted(many, LoopResult("finished", remaining=(DONE,)), *[DONE_LOOP] * 1)
    goal(run_loop)
    assert "f19.go and 5 more and did not write a done block" in seen[1][1]
    assert "f20.go" not in seen[1][1]


def test_parse_errors_and_an_idle_loop_are_both_said() -> None:
    run_loop, seen = scripted(
        LoopResult("finished", parse_errors=("unclosed block at line 3",)), WORKED,
        LoopResult("finished", remaining=(DONE,)), LoopResult("finished", remaining=(DONE,)),
    )  # fmt: skip
    goal(run_loop)
    assert seen[1][1].startswith(IDLE_NOTE) and "unclosed block at line 3" in seen[1][1]


def test_errors_that_differ_only_in_numbers_and_ids_are_the_same_error() -> None:
    run_loop, _ = scripted(
        LoopResult("failed", "server error (id 7f3a9c2e1b4d) see .log-20261201-1.xml"),
        LoopResult("failed", "server error (id 0c1d2e3f4a5b) see .log-20261201-2.xml"),
        LoopResult("failed", "server error (id 99aa88bb77cc) see .log-20261201-3.xml"),
    )  # fmt: skip
    result, err = goal(run_loop)
    assert (result.loops, result.exit_code) == (3, 1)
    assert "the same error ended 3 loops in a row" in err
