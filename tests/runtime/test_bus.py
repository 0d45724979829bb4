"""The event bus's delivery rules, one test per rule (see tai_core.runtime._bus)."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tai_core.runtime import (
    EventBus,
    Notice,
    RunFailed,
    RunFinished,
    TextReceived,
    ThoughtReceived,
    TreeChanged,
)
from tai_core.tree import SessionTree


def drain(subscription) -> list:
    async def collect():
        return [event async for event in subscription]

    return asyncio.run(collect())


def test_order_and_only_after_subscribing() -> None:
    bus = EventBus()
    bus.publish(Notice("s", "info", "before"))  # nobody subscribed: not delivered later
    early = bus.subscribe()
    bus.publish(Notice("s", "info", "one"))
    late = bus.subscribe()
    bus.publish(Notice("s", "info", "two"))
    bus.close()
    assert [e.message for e in drain(early)] == ["one", "two"]
    assert [e.message for e in drain(late)] == ["two"]


def test_adjacent_text_merges_without_loss() -> None:
    bus = EventBus()
    slow = bus.subscribe()
    for piece in ("Hel", "lo", " wor", "ld"):
        bus.publish(TextReceived("s", 1, piece))
    bus.publish(ThoughtReceived("s", 1, "hm"))
    bus.publish(ThoughtReceived("s", 1, "m"))
    bus.publish(TextReceived("s", 2, "next round"))
    assert slow.pending == 3
    bus.close()
    assert drain(slow) == [
        TextReceived("s", 1, "Hello world"),
        ThoughtReceived("s", 1, "hmm"),
        TextReceived("s", 2, "next round"),
    ]


def test_text_of_different_sessions_is_not_merged() -> None:
    bus = EventBus()
    sub = bus.subscribe()
    bus.publish(TextReceived("a", 1, "x"))
    bus.publish(TextReceived("b", 1, "y"))
    bus.close()
    assert [e.session_id for e in drain(sub)] == ["a", "b"]


def test_newer_tree_replaces_a_waiting_one() -> None:
    bus = EventBus()
    sub = bus.subscribe()
    first, second = SessionTree(), SessionTree()
    bus.publish(TreeChanged("s", first))
    bus.publish(TreeChanged("s", second))
    bus.close()
    (only,) = drain(sub)
    assert only.tree is second


def test_terminal_events_are_never_merged() -> None:
    bus = EventBus()
    sub = bus.subscribe()
    bus.publish(RunFailed("s", "first"))
    bus.publish(RunFailed("s", "second"))
    bus.publish(RunFinished("s", "", ""))
    bus.publish(RunFinished("s", "", ""))
    bus.close()
    assert len(drain(sub)) == 4


def test_publish_never_waits_for_a_stuck_client() -> None:
    bus = EventBus()
    stuck = bus.subscribe()  # never read until the end
    for index in range(100_000):
        bus.publish(Notice("s", "info", str(index)) if index % 2 else TextReceived("s", 1, "x"))
    assert stuck.pending == 100_000  # notices split the text runs; all kept
    bus.close()
    events = drain(stuck)
    assert sum(len(e.text) for e in events if isinstance(e, TextReceived)) == 50_000


def test_a_live_client_receives_while_the_publisher_runs() -> None:
    async def scenario() -> list:
        bus = EventBus()
        sub = bus.subscribe()
        received = []

        async def client() -> None:
            async for event in sub:
                received.append(event)

        task = asyncio.create_task(client())
        for index in range(5):
            bus.publish(Notice("s", "info", str(index)))
            await asyncio.sleep(0)
        bus.close()
        await task
        return received

    assert [e.message for e in asyncio.run(scenario())] == ["0", "1", "2", "3", "4"]


def test_closed_subscription_and_bus() -> None:
    bus = EventBus()
    sub = bus.subscribe()
    bus.publish(Notice("s", "info", "kept"))
    sub.close()
    bus.publish(Notice("s", "info", "after close"))
    assert [e.message for e in drain(sub)] == ["kept"]
    bus.close()
    assert drain(bus.subscribe()) == []
    with pytest.raises(RuntimeError, match="closed bus"):
        bus.publish(Notice("s", "info", "late"))


@given(st.lists(st.tuples(st.sampled_from(["text", "thought", "notice"]), st.text(max_size=5))))
def test_merging_keeps_every_character_in_order(items) -> None:
    bus = EventBus()
    sub = bus.subscribe()
    for what, text in items:
        if what == "text":
            bus.publish(TextReceived("s", 1, text))
        elif what == "thought":
            bus.publish(ThoughtReceived("s", 1, text))
        else:
            bus.publish(Notice("s", "info", text))
    bus.close()
    events = drain(sub)
    for cls in (TextReceived, ThoughtReceived):
        published = "".join(text for what, text in items if cls.__name__.startswith(what.title()))
        assert "".join(e.text for e in events if isinstance(e, cls)) == published
    assert [e.message for e in events if isinstance(e, Notice)] == [
        text for what, text in items if what == "notice"
    ]
