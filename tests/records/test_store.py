"""The records database on a real SQLite file: schema, transactions, queries."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tai_core.records import EventRow, RecordStore, records_path

T0 = "2026-01-02T10:11:12.000+00:00"
T1 = "2026-01-02T10:11:14.500+00:00"


def row(round_no: int, type_: str, detail: str) -> EventRow:
    return EventRow(round_no, T0, type_, detail)


def test_database_lives_in_the_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAI_CONFIG_DIR", str(tmp_path / "conf"))
    monkeypatch.setenv("TAI_DATA_DIR", str(tmp_path / "data"))
    assert records_path() == tmp_path / "data" / "tai-records.db"


def test_wal_busy_timeout_and_schema(tmp_path: Path) -> None:
    path = tmp_path / "new" / "records.db"
    RecordStore(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"sessions", "events"} <= tables
    columns = [c[1] for c in db.execute("PRAGMA table_info(sessions)")]
    assert columns == [
        "id", "command", "model", "cwd", "start_time", "end_time", "status", "error",
        "invocation",
    ]  # fmt: skip
    assert [c[1] for c in db.execute("PRAGMA table_info(events)")] == [
        "id", "session_id", "round", "time", "type", "detail"
    ]  # fmt: skip
    store = RecordStore(path)  # reopening keeps what is there
    assert store._db.execute("PRAGMA busy_timeout").fetchone() == (10_000,)
    store.close()


def test_a_session_from_begin_to_end(tmp_path: Path) -> None:
    store = RecordStore(tmp_path / "r.db")
    first = store.begin("next", "m", "/w", T0, [row(0, "system_prompt", "S"), row(0, "user", "")])
    assert store.session(first).status == "running"
    store.append(first, [row(1, "round_start", "attempt 1"), row(1, "text", "hello")])
    store.append(first, [row(2, "text", "")])  # nothing but empty details: no transaction
    store.end(first, [row(2, "round_end", "success")], status="success", end_time=T1)
    second = store.begin("next", "m", "/w", T1)
    store.end(second, [], status="error", end_time=T1, error="boom")
    session = store.session(first)
    assert (session.status, session.end_time, session.rounds) == ("success", T1, 2)
    assert [(e.round, e.type, e.detail) for e in store.events(first)] == [
        (0, "system_prompt", "S"),
        (1, "round_start", "attempt 1"),
        (1, "text", "hello"),
        (2, "round_end", "success"),
    ]
    assert [s.id for s in store.sessions(10)] == [second, first]
    assert [s.id for s in store.sessions(1)] == [second]
    assert store.session(second).error == "boom"
    assert store.session(999) is None
    store.close()


def test_a_failed_write_leaves_nothing_of_its_batch(tmp_path: Path) -> None:
    store = RecordStore(tmp_path / "r.db")
    session = store.begin("next", "m", "/w", T0)
    with pytest.raises(sqlite3.IntegrityError):
        store.end(session, [row(1, "text", "lost")], status="exploded", end_time=T1)
    assert store.events(session) == []
    assert store.session(session).status == "running"
    store.close()


def test_two_connections_see_each_others_commits(tmp_path: Path) -> None:
    writer, reader = RecordStore(tmp_path / "r.db"), RecordStore(tmp_path / "r.db")
    session = writer.begin("next", "m", "/w", T0)
    writer.append(session, [row(1, "text", "seen")])
    assert [e.detail for e in reader.events(session)] == ["seen"]
    writer.close()
    reader.close()


rows = st.builds(
    EventRow,
    round=st.integers(0, 50),
    time=st.just(T0),
    type=st.sampled_from(["text", "thought", "block_change", "notice"]),
    detail=st.text(max_size=40),
)


@given(st.lists(st.lists(rows, max_size=6), max_size=6))
def test_batches_read_back_in_order_without_empty_details(batches: list[list[EventRow]]) -> None:
    store = RecordStore(Path(":memory:"))
    session = store.begin("next", "m", "/w", T0)
    for batch in batches:
        store.append(session, batch)
    assert store.events(session) == [r for batch in batches for r in batch if r.detail]
    store.close()
