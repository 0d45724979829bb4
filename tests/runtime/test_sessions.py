"""Sessions through the runtime's commands, against the real pipeline, a local model server
and a real sessions database: every status change is an event and a save; a session is
saved after each turn and on close, reset, updated, listed, loaded and continued, deleted
and exported; ``tai_session_end`` is called once however a session ends, with its error."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import attrs
import pytest

from tai_core import hookimpl
from tai_core.commands._session import make_setup
from tai_core.models import resolve_model
from tai_core.pipeline import RunFailure
from tai_core.runtime import (
    TERMINAL_EVENTS,
    Cancel,
    CloseSession,
    DeleteSession,
    Event,
    EventBus,
    ExportSession,
    ListSessions,
    LoadSession,
    Notice,
    ResetSession,
    RoundStarted,
    RunCancelled,
    Runtime,
    SessionDeleted,
    SessionExported,
    SessionLoaded,
    SessionsListed,
    SessionStatusChanged,
    SessionUpdated,
    StartSession,
    Submit,
    TextReceived,
    TreeChanged,
    UpdateSession,
    UsageReported,
)
from tai_core.sessions import SessionNotFound, SessionStore
from tests.conftest import as_sent
from tests.servers import FakeModelServer, Reply


class Ends:
    """Records every ``tai_session_end`` call."""

    __name__ = "ends"

    def __init__(self) -> None:
        self.calls: list[tuple[str, BaseException | None]] = []

    @hookimpl
    def tai_session_end(self, session: Any, error: BaseException | None) -> None:
        self.calls.append((session.session_id, error))


@attrs.define
class Bench:
    """A runtime keeping sessions in a real database, a model server and the events."""

    host: Any
    server: FakeModelServer
    cwd: Path
    store: SessionStore
    ends: Ends
    events: list[Event] = attrs.field(factory=list)

    def setup(self, session_id: str | None = None, command: str = "next") -> Any:
        config = {
            "generators": [
                {"name": "local", "type": "openai", "model": "m",
                 "base_url": self.server.base_url, "api_key": "k", "temperature": 0.5}
            ]
        }  # fmt: skip
        spec = resolve_model("local", config, self.host.registry.providers, {})
        setup = make_setup(
            self.host, config, (self.host.registry.providers[spec.provider], spec),
            command=command, system="SYSTEM", require_completion=False, cwd=self.cwd,
        )  # fmt: skip
        if session_id is not None:
            setup = attrs.evolve(setup, options=attrs.evolve(setup.options, session_id=session_id))
        return setup

    def run(self, scenario: Callable[[Runtime], Coroutine[Any, Any, None]]) -> None:
        """Run ``scenario`` on a fresh runtime over the same database, then shut it down."""

        async def main() -> None:
            runtime = Runtime(self.host.pm.hook, EventBus(), store=self.store)
            subscription = runtime.bus.subscribe()
            collector = asyncio.get_running_loop().create_task(self._collect(subscription))
            try:
                await scenario(runtime)
                await runtime.settle()
            finally:
                await runtime.shutdown()
                runtime.bus.close()
                await collector

        asyncio.run(main())

    async def _collect(self, subscription: Any) -> None:
        async for event in subscription:
            self.events.append(event)

    def of(self, cls: type) -> list[Any]:
        return [event for event in self.events if isinstance(event, cls)]


@pytest.fixture
def bench(host: Any, tmp_path: Path, openai_server: FakeModelServer) -> Bench:
    ends = Ends()
    host.register(ends, "ends")
    return Bench(host, openai_server, tmp_path, SessionStore(tmp_path / "sessions.db"), ends)


async def turn(runtime: Runtime, session_id: str, text: str) -> None:
    runtime.handle(Submit(session_id, text))
    await runtime.wait(session_id)


def test_a_session_is_saved_after_each_turn_and_on_close(bench: Bench) -> None:
    bench.server.script(Reply(text="first answer"), Reply(text="second answer"))
    setup = bench.setup("s1")
    seen: list[tuple[str, int]] = []

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(StartSession(setup))
        await turn(runtime, "s1", "one")
        await runtime.settle()
        seen.append((bench.store.header("s1").status, bench.store.header("s1").messages))
        await turn(runtime, "s1", "two")
        runtime.handle(CloseSession("s1"))

    bench.run(scenario)
    assert seen == [("idle", 2)]
    stored = SessionStore(bench.cwd / "sessions.db").load("s1")
    assert stored.header.status == "closed"
    assert [(m.role, m.text) for m in stored.messages] == [
        ("user", as_sent("one", "user-input-1")), ("assistant", "first answer"),
        ("user", as_sent("two", "user-input-2")), ("assistant", "second answer"),
    ]  # fmt: skip
    assert stored.header.rounds == 2 and stored.header.cwd == str(bench.cwd)
    assert stored.header.parameters == {"temperature": 0.5}
    assert [e.status for e in bench.of(SessionStatusChanged)] == [
        "streaming", "idle", "streaming", "idle", "closed"
    ]  # fmt: skip
    assert bench.ends.calls == [("s1", None)]
    # the second request carried the first turn
    assert [m["content"] for m in bench.server.requests[1].body["messages"][1:]] == [
        as_sent("one", "user-input-1"), "first answer", as_sent("two", "user-input-2")
    ]  # fmt: skip


def test_a_session_is_first_written_when_its_first_turn_ends(bench: Bench) -> None:
    """Until then nothing is lost but that turn (and a one-shot command's request never
    waits for the database); a later turn in flight is saved as ``streaming``, which is
    how a session ended by a crash mid-turn is recognised."""
    bench.server.script(Reply(fault="stall"), Reply(text="first answer"), Reply(fault="stall"))
    seen: list[tuple[str, int] | None] = []

    def saved() -> tuple[str, int] | None:
        try:
            header = bench.store.header("s1")
        except SessionNotFound:
            return None
        return header.status, header.messages

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(StartSession(bench.setup("s1")))
        for number, text in enumerate(("stalled", "one", "two")):
            runtime.handle(Submit("s1", text))
            if number == 1:
                await runtime.wait("s1")
                continue
            while len(bench.server.requests) < number + 1:  # the request reached the server
                await asyncio.sleep(0.01)
            await runtime.keeper.drain()
            seen.append(saved())
            runtime.handle(Cancel("s1"))
            await runtime.wait("s1")

    bench.run(scenario)
    assert seen == [None, ("streaming", 2)]


def test_a_failed_turn_is_saved_as_an_error_and_ends_the_session_with_it(bench: Bench) -> None:
    bench.server.script(Reply(text="first answer"), Reply(fault="400"))

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(StartSession(bench.setup("s1")))
        await turn(runtime, "s1", "one")
        await turn(runtime, "s1", "two")
        await runtime.settle()
        header = bench.store.header("s1")
        assert (header.status, header.messages) == ("error", 2)  # the failed turn left none
        assert header.last_error and "400" in header.last_error

    bench.run(scenario)  # shutdown closes the session
    ((session_id, error),) = bench.ends.calls
    assert session_id == "s1" and isinstance(error, RunFailure)
    assert bench.of(SessionStatusChanged)[-2].error == str(error)
    closed = bench.store.header("s1")
    assert closed.status == "closed" and closed.last_error == str(error)  # kept after close


def test_a_session_with_nothing_to_continue_is_not_kept(bench: Bench) -> None:
    bench.server.script(Reply(fault="400"))

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(StartSession(bench.setup("s1")))
        await turn(runtime, "s1", "one")  # fails: no message to continue from
        runtime.handle(StartSession(bench.setup("s2")))  # never used
        runtime.handle(CloseSession("s2"))

    bench.run(scenario)
    assert bench.store.list(10) == []
    assert [call[0] for call in bench.ends.calls] == ["s2", "s1"]


def test_a_cancelled_turn_ends_the_session_with_the_cancellation(bench: Bench) -> None:
    bench.server.script(Reply(text="first answer"), Reply(fault="stall"))

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(StartSession(bench.setup("s1")))
        await turn(runtime, "s1", "one")
        runtime.handle(Submit("s1", "two"))
        while len(bench.server.requests) < 2:  # the request reached the server
            await asyncio.sleep(0.01)
        runtime.handle(Cancel("s1"))
        await runtime.wait("s1")
        runtime.handle(CloseSession("s1"))

    bench.run(scenario)
    assert len(bench.of(RunCancelled)) == 1
    ((_, error),) = bench.ends.calls
    assert isinstance(error, asyncio.CancelledError)
    assert bench.store.header("s1").status == "closed"


def test_a_cancelled_or_failed_turns_rounds_keep_their_numbers(bench: Bench) -> None:
    """The next turn goes on after them: two rounds never share a number (its events,
    its checkpoints), though the cancelled and the failed turns kept nothing."""
    bench.server.script(
        Reply(text="a"), Reply(text="never all", fault="stall"), Reply(fault="401"),
        Reply(text="b"),
    )  # fmt: skip

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(StartSession(bench.setup("s1")))
        await turn(runtime, "s1", "one")
        runtime.handle(Submit("s1", "two"))
        while len(bench.server.requests) < 2:
            await asyncio.sleep(0.01)
        runtime.handle(Cancel("s1"))
        await runtime.wait("s1")
        await turn(runtime, "s1", "three")  # refused by the model: fails
        await turn(runtime, "s1", "four")

    bench.run(scenario)
    assert [e.round for e in bench.of(RoundStarted)] == [1, 2, 3, 4]
    assert [m.text for m in bench.store.load("s1").messages] == [
        as_sent("one", "user-input-1"), "a", as_sent("four", "user-input-2"), "b"]  # fmt: skip


def test_reset_and_update(bench: Bench) -> None:
    bench.server.script(Reply(text="a"), Reply(text="b"))

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(StartSession(bench.setup("s1")))
        await turn(runtime, "s1", "one")
        runtime.handle(ResetSession("s1"))
        runtime.handle(UpdateSession("s1", temperature=1.25, max_output_tokens=99))
        await turn(runtime, "s1", "two")
        await runtime.settle()

    bench.run(scenario)
    second = bench.server.requests[1].body
    assert [m["content"] for m in second["messages"][1:]] == [
        as_sent("two", "user-input-1")]  # reset: the rest gone  # fmt: skip
    assert second["temperature"] == 1.25 and second["max_completion_tokens"] == 99
    (updated,) = bench.of(SessionUpdated)
    assert updated.parameters == {"temperature": 1.25, "max_output_tokens": 99}
    stored = bench.store.load("s1")
    assert [m.text for m in stored.messages] == [as_sent("two", "user-input-1"), "b"]
    assert stored.header.parameters == updated.parameters


def test_commands_that_change_a_running_session_are_refused(bench: Bench) -> None:
    bench.server.script(Reply(fault="stall"))

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(StartSession(bench.setup("s1")))
        runtime.handle(Submit("s1", "one"))
        for command in (ResetSession("s1"), UpdateSession("s1", temperature=1.0),
                        CloseSession("s1"), DeleteSession("s1")):  # fmt: skip
            runtime.handle(command)
        await asyncio.sleep(0)
        while len(bench.of(Notice)) < 4:
            await asyncio.sleep(0.01)
        runtime.handle(Cancel("s1"))

    bench.run(scenario)
    refusals = [n.message for n in bench.of(Notice) if n.level == "error"]
    assert refusals == ["the session is running; cancel it first"] * 4
    assert not bench.of(SessionUpdated) and not bench.of(SessionDeleted)


def test_list_load_and_continue(bench: Bench) -> None:
    bench.server.script(Reply(text="first answer"), Reply(text="second answer"))

    async def first(runtime: Runtime) -> None:
        runtime.handle(StartSession(bench.setup("s1")))
        await turn(runtime, "s1", "one")

    async def later(runtime: Runtime) -> None:  # another process: a new runtime
        runtime.handle(ListSessions(limit=5, cwd=str(bench.cwd)))
        runtime.handle(LoadSession("s1", bench.setup()))
        await runtime.settle()
        await turn(runtime, "s1", "two")

    bench.run(first)
    bench.run(later)
    (listed,) = bench.of(SessionsListed)
    assert [(h.id, h.messages, h.status) for h in listed.sessions] == [("s1", 2, "closed")]
    (first_usage,) = bench.of(UsageReported)[:1]  # the first turn's, by the first runtime
    taken_up = bench.of(SessionLoaded)[0]
    assert taken_up.messages == 2
    spent = (taken_up.input_tokens, taken_up.output_tokens)
    assert spent == (first_usage.usage.input, first_usage.usage.output) and spent[0] > 0
    loaded = bench.events.index(bench.of(SessionLoaded)[0])  # its tree follows, for the views
    assert isinstance(bench.events[loaded + 1], TreeChanged)
    assert bench.events[loaded + 1].tree.get("user-input-1").body == "one"
    assert [m["content"] for m in bench.server.requests[1].body["messages"][1:]] == [
        as_sent("one", "user-input-1"), "first answer", as_sent("two", "user-input-2")
    ]  # fmt: skip
    stored = bench.store.load("s1")
    assert len(stored.messages) == 4 and stored.header.rounds == 2
    assert [call[0] for call in bench.ends.calls] == ["s1", "s1"]


def test_a_new_session_never_replaces_a_kept_one_of_its_id(bench: Bench) -> None:
    """A client that starts a session under a kept session's id (instead of loading it)
    is told so at the first save; the kept session stays whole, the new one is not kept,
    and loading the id afterwards continues the kept one."""
    bench.server.script(
        Reply(text="kept answer"), Reply(text="other answer"), Reply(text="continued")
    )

    async def first(runtime: Runtime) -> None:
        runtime.handle(StartSession(bench.setup("s1")))
        await turn(runtime, "s1", "kept")

    async def clash(runtime: Runtime) -> None:  # another process, the same id
        runtime.handle(StartSession(bench.setup("s1")))
        await turn(runtime, "s1", "other")
        runtime.handle(CloseSession("s1"))
        await runtime.settle()
        runtime.handle(LoadSession("s1", bench.setup()))
        await runtime.settle()
        await turn(runtime, "s1", "on")

    bench.run(first)
    bench.run(clash)
    warnings = [e.message for e in bench.of(Notice) if e.level == "warning"]
    assert warnings == [
        "the session could not be saved: a kept session 's1' exists already (this one is "
        "not kept: load that id to continue it, or start with another id)"
    ]
    stored = SessionStore(bench.cwd / "sessions.db").load("s1")
    assert [m.text for m in stored.messages] == [
        as_sent("kept", "user-input-1"), "kept answer", as_sent("on", "user-input-2"),
        "continued"]  # fmt: skip


def test_a_damaged_database_is_answered_with_an_error(bench: Bench) -> None:
    """A list, load, export or deletion that the database cannot serve (here a table is
    gone) answers with an error notice instead of nothing."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(bench.cwd / "sessions.db")) as db:
        db.execute("DROP TABLE messages")
        db.commit()

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(ListSessions(limit=5))
        await runtime.settle()

    bench.run(scenario)
    errors = [e.message for e in bench.of(Notice) if e.level == "error"]
    assert errors == ["the sessions database cannot be read: no such table: messages"]


def test_delete_and_export(bench: Bench, tmp_path: Path) -> None:
    bench.server.script(Reply(text="answer"))
    exported = tmp_path / "s1.jsonl"

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(StartSession(bench.setup("s1")))
        await turn(runtime, "s1", "one")
        runtime.handle(ExportSession("s1", str(exported)))
        runtime.handle(DeleteSession("s1"))  # closes the live session, then deletes
        runtime.handle(DeleteSession("s1"))
        runtime.handle(ExportSession("nope", str(tmp_path / "nope.jsonl")))

    bench.run(scenario)
    lines = [json.loads(line) for line in exported.read_text().splitlines()]
    assert lines[0]["id"] == "s1" and lines[1:3] == [
        {"type": "message", "role": "user", "content": as_sent("one", "user-input-1")},
        {"type": "message", "role": "assistant", "content": "answer"},
    ]
    assert [e.session_id for e in bench.of(SessionExported)] == ["s1"]
    assert [e.session_id for e in bench.of(SessionDeleted)] == ["s1"]
    errors = [n.message for n in bench.of(Notice) if n.level == "error"]
    assert errors == ["no session 's1'", "no session 'nope'"]
    with pytest.raises(SessionNotFound):
        bench.store.header("s1")  # the close's save did not bring it back
    assert not (tmp_path / "nope.jsonl").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_runtime_without_a_store_says_so(host: Any) -> None:
    events: list[Event] = []

    async def scenario() -> None:
        runtime = Runtime(host.pm.hook, EventBus())
        subscription = runtime.bus.subscribe()
        runtime.handle(ListSessions())
        await runtime.settle()
        runtime.bus.close()
        events.extend([event async for event in subscription])

    asyncio.run(scenario())
    assert [(type(e).__name__, getattr(e, "message", "")) for e in events] == [
        ("Notice", "sessions are not kept by this runtime")
    ]
    assert not any(isinstance(e, TERMINAL_EVENTS) for e in events)


@pytest.mark.parametrize("cut", ["", "Part two, half wr"])
def test_a_cancelled_turn_reports_the_usage_of_its_attempts(bench: Bench, cut: str) -> None:
    """What the run spent before the cancel is said as a finished run's is: the table of
    the attempts that ended (round 1), and of round 2's when the model had begun to write
    (billed all the same: estimated, marked ~)."""
    bench.server.script(
        Reply(text="Part one.\n<<甲乙 continue\nthe rest\n甲乙\n"), Reply(text=cut, fault="stall")
    )

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(StartSession(bench.setup("s1", command="any")))  # rounds go on
        runtime.handle(Submit("s1", "do it"))
        async with asyncio.timeout(20):
            while len(bench.server.requests) < 2:  # round 2's request reached the server
                await asyncio.sleep(0.01)
            while cut and not [e for e in bench.of(TextReceived) if e.round == 2]:
                await asyncio.sleep(0.01)  # half the words reached it (then the server stalls)
        runtime.handle(Cancel("s1"))
        await runtime.wait("s1")

    bench.run(scenario)
    (cancelled,) = bench.of(RunCancelled)
    rows = [line.split() for line in cancelled.report.splitlines()]
    assert rows[0][:2] == ["Round", "Try"]
    assert rows[1][:2] == ["1", "1"] and rows[1][-1] == "stop"
    assert rows[-1][0] == "total"
    if not cut:  # nothing written yet: nothing billed for round 2
        assert len(rows) == 3
    else:
        assert rows[2][:3] == ["2", "1", "~" + rows[2][2][1:]] and rows[2][-1] == "cancelled"
        assert int(rows[2][4].lstrip("~")) > 0  # the words written, estimated
