"""The goal runner's rules: done confirmed by a second loop, feedback, limits."""

from __future__ import annotations

import asyncio
import io

from tai_core.blocks import Block
from tai_core.commands._goal import VERIFY_NOTE, LoopResult, run_goal

DONE = Block(kind="done", delimiter="W", params={}, body="all green", line=1, start=0, end=1)


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
        LoopResult("finished"), LoopResult("finished", remaining=(DONE,)),
        LoopResult("finished", remaining=(DONE,)),
    )  # fmt: skip
    result, err = goal(run_loop)
    assert (result.achieved, result.loops, result.exit_code) == (True, 3, 0)
    assert seen == [(1, ""), (2, ""), (3, VERIFY_NOTE)]
    assert "=== Goal Loop 1/20 ===" in err and "Goal Achieved after 3 loop(s)" in err


def test_a_done_not_repeated_is_not_achieved() -> None:
    run_loop, seen = scripted(
        LoopResult("finished", remaining=(DONE,)), LoopResult("finished"),
        LoopResult("finished", remaining=(DONE,)), LoopResult("finished", remaining=(DONE,)),
    )  # fmt: skip
    result, _ = goal(run_loop)
    assert result.achieved and result.loops == 4
    assert [feedback for _, feedback in seen] == ["", VERIFY_NOTE, "", VERIFY_NOTE]


def test_errors_are_fed_back_and_three_in_a_row_stop() -> None:
    run_loop, seen = scripted(
        LoopResult("failed", "boom"), LoopResult("failed", "boom"), LoopResult("failed", "boom"),
    )  # fmt: skip
    result, err = goal(run_loop)
    assert (result.achieved, result.loops, result.exit_code) == (False, 3, 1)
    assert seen[1][1].startswith("The previous loop failed: boom")
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
        LoopResult("finished"), LoopResult("finished", remaining=(DONE,)),
        LoopResult("finished", remaining=(DONE,)),
    )  # fmt: skip
    result, err = goal(run_loop, max_loops=2)
    assert (result.achieved, result.loops) == (True, 3)
    assert "=== Goal Loop 3/3 ===" in err


def test_the_budget_runs_out() -> None:
    run_loop, _ = scripted(*[LoopResult("finished")] * 3)
    result, err = goal(run_loop, max_loops=3)
    assert (result.achieved, result.exit_code) == (False, 1)
    assert "not confirmed within 3 loops" in err


def test_cancel_stops_at_once() -> None:
    run_loop, seen = scripted(LoopResult("cancelled"))
    result, _ = goal(run_loop)
    assert result.exit_code == 130 and len(seen) == 1
