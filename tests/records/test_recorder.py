"""The recorder as a bus client: events of a run into rows, a transaction per round, and
failures that only warn."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from tai_core.blocks import BlockResult, parse_blocks
from tai_core.models import Usage
from tai_core.records import Recorder, RecordStore
from tai_core.runtime import (
    BlockFinished,
    BlockParsed,
    EventBus,
    Notice,
    ParseFailed,
    RoundEnded,
    RoundStarted,
    RunCancelled,
    RunFailed,
    RunFinished,
    SessionStarted,
    TextReceived,
    ThoughtReceived,
    TreeChanged,
    UsageReported,
)
from tai_core.tree import NodeKind, NodeSpec, SessionTree

REPLY = '<<紫藤 shell(timeout="3", note="a \\"b\\"")\nls\n紫藤\n<<松柏 bad(\n'
(SHELL, BROKEN) = parse_blocks(REPLY)


def tree_with(*events: dict[str, str]) -> SessionTree:
    tree = SessionTree()
    for fields in events:
        tree, _ = tree.add(NodeSpec(NodeKind.EVENT, body=fields.pop("body", ""), attrs=fields))
    return tree


def round_one(session: str = "s") -> list:
    """Round 1 of a run: streamed text and thoughts, a block, a parse error, usage."""
    return [
        SessionStarted(session, "next", "replay:x"),
        RoundStarted(session, 1, 1),
        ThoughtReceived(session, 1, "hm"),
        ThoughtReceived(session, 1, "m"),
        *(TextReceived(session, 1, piece) for piece in (REPLY[:10], REPLY[10:30], REPLY[30:])),
        BlockParsed(session, 1, SHELL),
        ParseFailed(session, 1, BROKEN),
        UsageReported(session, 1, Usage(input=10, output=5), 0.25),
        TreeChanged(session, tree_with({"event": "finish", "finish": "stop"})),
        RoundEnded(session, 1, "success"),
        BlockFinished(session, 1, SHELL, BlockResult(kind="shell", ok=True, text="a.txt")),
    ]


def rows(path: Path, session: int = 1) -> list[tuple[int, str, str]]:
    """What another connection sees: ``(round, type, detail)``."""
    db = sqlite3.connect(path)
    try:
        return list(
            db.execute(
                "SELECT round, type, detail FROM events WHERE session_id = ? ORDER BY id",
                (session,),
            )
        )
    finally:
        db.close()


def recorder(path: Path, warnings: list[str] | None = None) -> Recorder:
    found = Recorder.open(
        cwd=Path("/work"), system="SYSTEM", user="USER", path=path,
        warn=(warnings if warnings is not None else []).append,
    )  # fmt: skip
    assert found is not None
    return found


def test_a_round_is_written_when_the_next_begins(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    rec = recorder(path)
    for event in round_one():
        assert rec.take(event) is False
    assert rows(path) == [(0, "system_prompt", "SYSTEM"), (0, "user", "USER")]
    rec.take(RoundStarted("s", 2, 1))
    assert [r[1] for r in rows(path)] == [
        "system_prompt", "user", "round_start", "thought", "text", "block_shell",
        "parse_error", "usage", "finish", "round_end", "block_result",
    ]  # fmt: skip
    written = {type_: detail for _, type_, detail in rows(path)}
    assert written["text"] == REPLY  # one row for the whole streamed reply
    assert written["thought"] == "hmm"
    assert written["block_shell"] == 'shell(timeout="3", note="a \\"b\\"") delimiter=紫藤\nls'
    assert written["parse_error"].startswith("malformed block at line 4")
    assert written["usage"] == (
        "input=10 cache_read=0 cache_write=0 output=5 reasoning=0 cost=0.250000"
    )
    assert written["block_result"] == "shell ok\na.txt"
    rec.take(TextReceived("s", 2, "Done."))
    assert rec.take(RunFinished("s", summary="- done", report="TABLE", diff="DIFF")) is True
    assert rows(path)[-6:] == [
        (2, "round_start", "attempt 1"),
        (2, "text", "Done."),
        (2, "outline", "Session tree (2 nodes):"),
        (2, "run_finished", "- done"),
        (2, "diff", "DIFF"),
        (2, "report", "TABLE"),
    ]
    store = RecordStore(path)
    session = store.session(1)
    assert (session.command, session.model, session.cwd) == ("next", "replay:x", "/work")
    assert (session.status, session.rounds, session.error) == ("success", 2, None)
    assert session.end_time is not None
    store.close()


def test_retries_handoffs_and_failures(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    rec = recorder(path)
    truncated = tree_with({"event": "finish", "finish": "length"})
    handed = tree_with(
        {"event": "finish", "finish": "length"},
        {"event": "truncation", "body": "reply cut short"},
        {"event": "handoff", "body": "NOTE"},
    )
    for event in [
        SessionStarted("s", "next", "m"),
        RoundStarted("s", 1, 1),
        TextReceived("s", 1, "cut"),
        TreeChanged("s", truncated),
        RoundEnded("s", 1, "retry"),
        Notice("s", "warning", "the reply was cut short; retrying"),
        TreeChanged("s", handed),
        RoundStarted("s", 1, 2),
    ]:
        rec.take(event)
    rec.take(RunFailed("s", "round 1 failed", "TABLE"))
    assert [r for r in rows(path) if r[1] not in ("system_prompt", "user", "outline")] == [
        (1, "round_start", "attempt 1"),
        (1, "text", "cut"),
        (1, "finish", "length"),
        (1, "round_end", "retry"),
        (1, "notice", "warning: the reply was cut short; retrying"),
        (1, "handoff", "NOTE"),
        (1, "round_start", "attempt 2"),
        (1, "run_failed", "round 1 failed"),
        (1, "report", "TABLE"),
    ]
    store = RecordStore(path)
    assert (store.session(1).status, store.session(1).error) == ("error", "round 1 failed")
    store.close()


def test_a_cancelled_run_keeps_its_partial_reply(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    rec = recorder(path)
    for event in round_one()[:5]:
        rec.take(event)
    assert rec.take(RunCancelled("s")) is True
    assert ("text", REPLY[:10]) in [(t, d) for _, t, d in rows(path)]
    store = RecordStore(path)
    assert store.session(1).status == "cancelled"
    store.close()


def test_follows_its_session_on_a_real_bus(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    rec = recorder(path)

    async def scenario() -> None:
        bus = EventBus()
        task = asyncio.create_task(rec.follow(bus.subscribe(), "s"))
        for event in round_one():
            bus.publish(event)
        for event in round_one("other"):  # another session on the same bus: ignored
            bus.publish(event)
        bus.publish(RunFinished("s", summary="", report=""))
        await asyncio.wait_for(task, 5)

    asyncio.run(scenario())
    assert [r[1] for r in rows(path)].count("text") == 1
    assert rows(path, session=2) == []
    store = RecordStore(path)
    assert [s.status for s in store.sessions(5)] == ["success"]
    store.close()


def test_an_unopenable_database_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    warnings: list[str] = []
    found = Recorder.open(
        cwd=tmp_path, system="S", user="U", path=tmp_path / "file" / "r.db", warn=warnings.append
    )
    assert found is None
    assert len(warnings) == 1 and warnings[0].startswith("not recording: ")


def test_a_failing_write_stops_recording_with_one_warning(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    warnings: list[str] = []
    rec = recorder(path, warnings)
    events = round_one()
    rec.take(events[0])
    db = sqlite3.connect(path)
    db.execute("DROP TABLE events")
    db.commit()
    db.close()
    for event in events[1:]:
        rec.take(event)
    rec.take(RoundStarted("s", 2, 1))  # the flush fails here
    assert rec.take(RunFinished("s", summary="", report="")) is True
    assert len(warnings) == 1 and warnings[0].startswith("recording stopped: ")
