"""Recorded replies written for the replay provider play back as recorded (hypothesis over
texts, thoughts, usage and finish reasons; the real provider reads the file)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tai_core.blocks import Block, parse_blocks
from tai_core.models import (
    Finish,
    GenerationRequest,
    Message,
    ProviderError,
    TextDelta,
    ThoughtDelta,
    Usage,
    resolve_model,
)
from tai_core.plugins import PluginHost
from tai_core.records import EventRow, ReplayError, replay_script

T = "2026-01-02T10:11:12.000+00:00"
REQUEST = GenerationRequest(system="S", messages=(Message("user", "U"),))
# Replay files are read with universal newlines, so a recorded "\r" cannot survive.
texts = st.text(st.characters(blacklist_characters="\r", blacklist_categories=("Cs",)))
counts = st.fixed_dictionaries(
    {key: st.integers(0, 10**6) for key in ("input", "cache_read", "output", "reasoning")}
)
replies = st.tuples(texts, texts, counts, st.sampled_from(["stop", "length", "content_filter"]))


def rows_of(recorded: list[tuple[str, str, dict[str, int], str]]) -> list[EventRow]:
    """The rows the recorder writes for these attempts (one round each)."""
    rows = [EventRow(0, T, "system_prompt", "S")]
    for number, (text, thought, usage, finish) in enumerate(recorded, start=1):
        usage_detail = " ".join(f"{k}={v}" for k, v in usage.items()) + " cost=0.000000"
        rows += [
            EventRow(number, T, "round_start", "attempt 1"),
            EventRow(number, T, "thought", thought),
            EventRow(number, T, "text", text),
            EventRow(number, T, "usage", usage_detail),
            EventRow(number, T, "finish", finish),
            EventRow(number, T, "round_end", "success"),
        ]
    return rows


def play(host: PluginHost, script: str, calls: int) -> list[list]:
    """The events of ``calls`` model calls of the replay provider playing ``script``."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "run.replay"
        path.write_text(script, encoding="utf-8")
        spec = resolve_model(f"replay:{path}", {}, host.registry.providers, {})
        provider = host.registry.providers[spec.provider]

        async def call() -> list:
            return [event async for event in provider.stream(spec, REQUEST)]

        return [asyncio.run(call()) for _ in range(calls)]


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)
@given(st.lists(replies, min_size=1, max_size=4))
def test_replies_play_back_as_recorded(host: PluginHost, recorded: list) -> None:
    assume(not any(line.startswith("@@@ ") for r in recorded for line in r[0].splitlines()))
    played = play(host, replay_script([(1, rows_of(recorded))]), len(recorded))
    for (text, thought, usage, finish), events in zip(recorded, played, strict=True):
        trimmed = text.rstrip("\n")
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == (
            trimmed + "\n" if trimmed else ""
        )
        assert "".join(e.text for e in events if isinstance(e, ThoughtDelta)) == "\n".join(
            thought.splitlines()
        ).lstrip("\n")
        assert [e for e in events if isinstance(e, Usage)] == [Usage(**usage)]
        assert events[-1] == Finish(finish)


def test_a_failed_attempt_fails_again_after_its_output(host: PluginHost) -> None:
    rows = [
        EventRow(1, T, "round_start", "attempt 1"),
        EventRow(1, T, "text", "Half an"),
        EventRow(1, T, "finish", "error"),
    ]
    script = replay_script([(3, rows)])
    assert script.startswith("# The replies of recorded run 3 ")
    with pytest.raises(ProviderError) as failure:
        play(host, script, 1)
    assert failure.value.status == 400 and not failure.value.retryable


def test_a_handoff_note_is_a_reply_of_its_own(host: PluginHost) -> None:
    note = "Found the bug in 交接 parse.go; fix it first."
    rows = [
        EventRow(1, T, "round_start", "attempt 1"),
        EventRow(1, T, "text", "cut"),
        EventRow(1, T, "handoff", note),
        EventRow(1, T, "round_start", "attempt 2"),
        EventRow(1, T, "text", "whole"),
    ]
    first, handoff, second = play(host, replay_script([(1, rows)]), 3)
    assert [e.text for e in first if isinstance(e, TextDelta)] == ["cut\n"]
    text = "".join(e.text for e in handoff if isinstance(e, TextDelta))
    (block,) = parse_blocks(text)
    assert isinstance(block, Block)
    assert (block.kind, block.body) == ("handoff", note)
    assert "".join(e.text for e in second if isinstance(e, TextDelta)) == "whole\n"


def test_a_text_line_that_reads_as_a_directive_cannot_be_written() -> None:
    rows = [EventRow(2, T, "round_start", "attempt 1"), EventRow(2, T, "text", "a\n@@@ reply\n")]
    with pytest.raises(ReplayError, match="run 5, reply in round 2, attempt 1: a line of it"):
        replay_script([(5, rows)])


def test_the_runs_of_one_command_play_one_after_the_other(host: PluginHost) -> None:
    loops = [
        (4, [EventRow(1, T, "round_start", "attempt 1"), EventRow(1, T, "text", "first")]),
        (5, [EventRow(1, T, "round_start", "attempt 1"), EventRow(1, T, "text", "second")]),
    ]
    script = replay_script(loops, asked=5)
    assert script.startswith("# The replies of recorded runs 4 and 5 (tai record -session 5 ")
    played = play(host, script, 2)
    assert ["".join(e.text for e in events if isinstance(e, TextDelta)) for events in played] == [
        "first\n", "second\n"
    ]  # fmt: skip
