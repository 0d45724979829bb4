"""The rules a steered round keeps (tai_core.pipeline._loop with ._steer), through the runtime
against a local model server: steered attempts use none of the round's retries (counted
right however often the user steers), the retry note counts only real retries, steering
text sent with a round survives that round's retry, and the interruption is told as it is —
a notice of its own, an event node with the user's words, the reply exactly as it came."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tai_core.runtime import (
    Event,
    Notice,
    RoundEnded,
    RunFailed,
    RunFinished,
    Runtime,
    Steer,
    Submit,
    TextReceived,
)
from tests.runtime.conftest import drive_server_session
from tests.servers import FakeModelServer, Reply

#: A reply that streams half of itself and then waits.
STALL = Reply(text="one two three four five six", chunks=2, fault="stall")
#: A reply whose connection drops after half of it: a failed attempt with output.
DROP = Reply(text="Half of a reply that", chunks=2, fault="drop")


async def steer_each_stall(runtime: Runtime, server: FakeModelServer, stalls: int) -> None:
    """Submit, then steer every stalled reply as soon as its first text has come."""
    events = runtime.bus.subscribe()
    runtime.handle(Submit("s", "go"))
    for number in range(stalls):
        async for event in events:
            if isinstance(event, TextReceived):
                break
        runtime.handle(Steer("s", f"correction {number + 1}"))
    await runtime.wait("s")
    events.close()


def user_texts(server: FakeModelServer, index: int) -> list[str]:
    return [m["content"] for m in server.requests[index].body["messages"] if m["role"] == "user"]


def test_steering_uses_none_of_the_retries_however_often(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    # two steers, then a failed attempt: with one retry allowed, the round is retried
    openai_server.script(STALL, STALL, DROP, Reply(text="Done."))

    async def scenario(runtime: Runtime) -> None:
        await steer_each_stall(runtime, openai_server, stalls=2)

    events = drive_server_session(
        host, openai_server, tmp_path, scenario, run_options={"max_retries": 1}
    )
    assert any(isinstance(e, RunFinished) for e in events), events
    assert len(openai_server.requests) == 4
    # the retry note counts real retries only: the first of one
    assert "This is retry attempt 1 of 1." in user_texts(openai_server, 3)[-1]
    ended = [(e.round, e.outcome) for e in events if isinstance(e, RoundEnded)]
    assert ended == [(1, "retry"), (1, "retry"), (1, "retry"), (1, "success")]


def test_a_steered_round_fails_when_its_real_retries_are_spent(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    openai_server.script(STALL, DROP, DROP)

    async def scenario(runtime: Runtime) -> None:
        await steer_each_stall(runtime, openai_server, stalls=1)

    events = drive_server_session(
        host, openai_server, tmp_path, scenario, run_options={"max_retries": 1}
    )
    assert any(isinstance(e, RunFailed) for e in events)
    assert len(openai_server.requests) == 3  # the steered one, the first try, one retry


def test_the_interruption_is_told_as_it_is(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    openai_server.script(STALL, Reply(text="Done."))
    trees: list[Any] = []

    async def scenario(runtime: Runtime) -> None:
        await steer_each_stall(runtime, openai_server, stalls=1)
        trees.append(runtime.state("s").tree)

    events = drive_server_session(host, openai_server, tmp_path, scenario)
    before = events[: next(i for i, e in enumerate(events) if isinstance(e, Notice))]
    streamed = "".join(e.text for e in before if isinstance(e, TextReceived))
    assert streamed == "one two three "  # the first of the two pieces, before the steer
    assert user_texts(openai_server, 1)[-1] == "correction 1"
    reply = openai_server.requests[1].body["messages"][-2]
    assert reply == {
        "role": "assistant", "content": "one two three\n\n[the user interrupted this reply]"
    }  # fmt: skip
    notices = [e for e in events if isinstance(e, Notice)]
    assert [(n.session_id, n.level, n.message) for n in notices] == [
        ("s", "info", "steered: the reply was interrupted")
    ]
    steered = [n for _, n in trees[0] if n.attrs.get("event") == "steered"]
    assert [n.body for n in steered] == ["correction 1"]


def test_steering_sent_with_a_round_survives_its_retry(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    from tests.runtime.test_steer import Wait, WaitPlugin

    host.register(WaitPlugin(), "wait")
    Wait.released.clear()
    Wait.started.clear()
    cut = Reply(text="A reply cut by its length", finish="length")  # retried from the snapshot
    openai_server.script(Reply(text="<<松柏 wait\nnow\n松柏\n"), cut, Reply(text="Done."))

    async def scenario(runtime: Runtime) -> None:
        import asyncio

        runtime.handle(Submit("s", "check"))
        await asyncio.to_thread(Wait.started.wait, 30)
        runtime.handle(Steer("s", "and be brief"))
        Wait.released.set()
        await runtime.wait("s")

    events: list[Event] = drive_server_session(host, openai_server, tmp_path, scenario)
    assert any(isinstance(e, RunFinished) for e in events)
    for index in (1, 2):  # the round's first try and its retry both carry the words
        assert any("and be brief" in text for text in user_texts(openai_server, index))
