"""What the pipeline publishes, event by event: every front-end (the terminal UI, the web
page, a JSON-lines client) renders a run from these alone, so each must name its session
and round, and together they must say exactly what the model streamed."""

from __future__ import annotations

from tai_core.runtime import (
    BlockFinished,
    BlockParsed,
    BlockStarted,
    Notice,
    ParseFailed,
    RoundEnded,
    RoundStarted,
    RunFinished,
    TextReceived,
    ThoughtReceived,
    UsageReported,
)
from tai_core.tree import NodeKind

SUMMARY = "<<紫藤 summary\n- done\n紫藤"
FIRST = "Part one.\n<<松柏 shell(x=\nls\n松柏\n<<紫藤 continue\nnow part two\n紫藤"
SECOND = f"Part two.\n{SUMMARY}"
REPLIES = [
    f"@@@ thought: Look first.\n@@@ thought: Then act.\n@@@ usage input=100 output=20\n"
    f"@@@ chunk 5\n{FIRST}",
    f"@@@ usage input=150 output=10\n@@@ chunk 7\n{SECOND}",
]


def test_events_name_their_session_and_round_and_add_up_to_the_reply(replay) -> None:
    outcome = replay(REPLIES)
    assert isinstance(outcome.terminal, RunFinished)
    for event in outcome.events:
        assert getattr(event, "session_id", outcome.session_id) == outcome.session_id, event
    assert [(e.round, e.attempt) for e in outcome.of(RoundStarted)] == [(1, 1), (2, 1)]
    text = {n: "".join(e.text for e in outcome.of(TextReceived) if e.round == n) for n in (1, 2)}
    assert text == {1: FIRST + "\n", 2: SECOND + "\n"}  # a replayed reply ends its line
    assert len(outcome.of(TextReceived)) > 2  # streamed in chunks, not at once
    thoughts = outcome.of(ThoughtReceived)
    assert {e.round for e in thoughts} == {1}
    assert "".join(e.text for e in thoughts) == "Look first.\nThen act."
    parsed = [(e.round, e.block.kind) for e in outcome.of(BlockParsed)]
    assert parsed == [(1, "continue"), (2, "summary")]
    (failed,) = outcome.of(ParseFailed)
    assert failed.round == 1 and failed.error is not None
    assert [(e.round, e.block.kind) for e in outcome.of(BlockStarted)] == [(1, "continue")]
    assert [(e.round, e.result.ok) for e in outcome.of(BlockFinished)] == [(1, True)]
    usage = [(e.round, e.usage.input, e.usage.output) for e in outcome.of(UsageReported)]
    assert usage == [(1, 100, 20), (2, 150, 10)]
    assert [(e.round, e.outcome) for e in outcome.of(RoundEnded)] == [
        (1, "success"),
        (2, "success"),
    ]


def test_retries_are_told_recorded_in_the_tree_and_counted_per_attempt(replay) -> None:
    outcome = replay(
        [
            "@@@ usage input=10 output=5\nCut off here\n@@@ finish length",
            "@@@ usage input=20 output=6\nno summary at all",
            f"@@@ usage input=30 output=7\nDone now.\n{SUMMARY}",
        ]
    )
    assert isinstance(outcome.terminal, RunFinished)
    notices = [(n.session_id, n.level, n.message) for n in outcome.of(Notice)]
    assert (outcome.session_id, "warning", "the reply was cut short; retrying") in notices
    events = [
        (node.attrs.get("event"), node.body)
        for _, node in outcome.state.tree
        if node.kind == NodeKind.EVENT and node.attrs.get("event")
    ]
    assert ("truncation", "reply cut short") in events
    assert ("finish", "finish length") in events and ("finish", "finish stop") in events
    rows = [(r.round, r.attempt, r.usage.input, r.outcome) for r in outcome.state.usage_rows]
    assert rows == [(1, 1, 10, "length"), (1, 2, 20, "stop"), (1, 3, 30, "stop")]
    assert all(r.seconds >= 0 for r in outcome.state.usage_rows)
