"""How thoughts are cut for summaries (tai_core.pipeline._thoughts.ThoughtStream), on a
clock the test moves: nothing before the interval, then up to the last paragraph break
(else line break), the rest when the answer begins; summaries in order."""

from __future__ import annotations

import asyncio

from tai_core.pipeline._thoughts import INTERVAL, ThoughtStream


def test_thoughts_are_cut_at_breaks_once_the_interval_has_passed() -> None:
    now = [0.0]
    asked: list[str] = []
    published: list[str] = []

    async def summarize(thoughts: str) -> str | None:
        asked.append(thoughts)
        return f"S{len(asked)}" if "skip" not in thoughts else None

    async def scenario() -> tuple[str, ...]:
        stream = ThoughtStream(summarize, published.append, clock=lambda: now[0])
        stream.thought("first idea\n\nsecond ")
        now[0] = INTERVAL - 0.1
        stream.thought("still second\n")  # not yet: the interval has not passed
        now[0] = INTERVAL
        stream.thought("third, unfinished")  # cut at the paragraph break
        now[0] = 2 * INTERVAL
        stream.thought(" skip this\nand more")  # no paragraph break: cut at the line break
        stream.answer_began()
        return await stream.summaries()

    summaries = asyncio.run(scenario())
    assert asked == [
        "first idea\n\n", "second still second\nthird, unfinished skip this\n", "and more"
    ]  # fmt: skip
    assert summaries == ("S1", "S3") and published == ["S1", "S3"]
