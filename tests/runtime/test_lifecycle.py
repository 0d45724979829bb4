"""The lifecycle hooks a plugin answers, through the runtime against a local model server:
turn start and end on every way a turn ends, a raising observer named and outlived,
messages injected for one call, the schedule ticking while sessions are idle."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from tai_core import hookimpl
from tai_core.pipeline import RunFailure
from tai_core.runtime import (
    Cancel,
    Notice,
    RunFailed,
    RunFinished,
    Runtime,
    Submit,
)
from tests.conftest import as_sent
from tests.runtime.conftest import drive_server_session
from tests.servers import FakeModelServer, Reply


class Turns:
    __name__ = "turns"

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    @hookimpl
    def tai_turn_start(self, session: Any, text: str) -> None:
        self.calls.append(("start", text))

    @hookimpl
    def tai_turn_end(self, session: Any, outcome: str, error: BaseException | None) -> None:
        self.calls.append(("end", outcome, type(error).__name__ if error else ""))


class Broken:
    __name__ = "broken"

    @hookimpl
    def tai_turn_start(self, session: Any, text: str) -> None:
        raise ValueError("no turns today")


class Injector:
    __name__ = "injector"

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    @hookimpl
    def tai_before_model_call(self, session: Any, model: str, messages: Any) -> Any:
        return {"messages": self.answer(messages)}


def drive(host: Any, server: FakeModelServer, tmp_path: Path, scenario: Any, **kw: Any) -> list:
    return drive_server_session(host, server, tmp_path, scenario, **kw)


def test_every_turn_starts_and_ends_once(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    turns = Turns()
    host.register(turns, "turns")
    openai_server.script(Reply(text="ok"), Reply(fault="400"), Reply(fault="stall"))

    async def scenario(runtime: Runtime) -> None:
        for text in ("one", "two"):
            runtime.handle(Submit("s", text))
            await runtime.wait("s")
        runtime.handle(Submit("s", "three"))
        while len(openai_server.requests) < 3:
            await asyncio.sleep(0.01)
        runtime.handle(Cancel("s"))
        await runtime.wait("s")

    drive(host, openai_server, tmp_path, scenario)
    assert turns.calls == [
        ("start", "one"), ("end", "finished", ""),
        ("start", "two"), ("end", "failed", RunFailure.__name__),
        ("start", "three"), ("end", "cancelled", "CancelledError"),
    ]  # fmt: skip


def test_a_raising_observer_is_named_and_the_others_go_on(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    turns = Turns()
    host.register(turns, "turns")
    host.register(Broken(), "broken")
    openai_server.script(Reply(text="ok"))

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(Submit("s", "one"))
        await runtime.wait("s")

    events = drive(host, openai_server, tmp_path, scenario)
    assert any(isinstance(e, RunFinished) for e in events)
    assert [e.message for e in events if isinstance(e, Notice)] == [
        "plugin 'broken': tai_turn_start failed: ValueError: no turns today"
    ]
    assert ("start", "one") in turns.calls


def test_a_plugin_gives_one_call_other_messages(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    context = {"role": "user", "text": "Context: the deploy key rotates on Mondays."}
    understood = {"role": "assistant", "text": "Understood."}
    injector = Injector(lambda messages: [context, understood, *messages])
    host.register(injector, "injector")
    openai_server.script(Reply(text="Mondays."), Reply(text="Still Mondays."))

    async def scenario(runtime: Runtime) -> None:
        for text in ("when?", "sure?"):
            runtime.handle(Submit("s", text))
            await runtime.wait("s")

    drive(host, openai_server, tmp_path, scenario)
    sent = [m["content"] for m in openai_server.requests[1].body["messages"][1:]]
    # the injected pair is in each call, never in the session's own conversation
    assert sent == [context["text"], understood["text"], as_sent("when?", "user-input-1"),
                    "Mondays.", as_sent("sure?", "user-input-2")]  # fmt: skip


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ([], "that are not a non-empty list"),
        ([{"role": "system", "text": "x"}], "whose item 0 is not"),
        ([{"role": "user", "text": "x"}, {"role": "assistant", "text": "y"}],
         "that do not end with the user's message"),
    ],
)  # fmt: skip
def test_messages_a_provider_cannot_take_fail_the_run_with_the_reason(
    answer: Any, reason: str, host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    host.register(Injector(lambda _messages: answer), "injector")

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(Submit("s", "hi"))
        await runtime.wait("s")

    events = drive(host, openai_server, tmp_path, scenario)
    (failed,) = [e for e in events if isinstance(e, RunFailed)]
    assert f"plugin 'injector': tai_before_model_call returned messages {reason}" in (
        failed.message
    )
    assert openai_server.requests == []


class Switcher:
    """Sends the calls whose last message asks for it to the model ``big``."""

    @hookimpl
    def tai_before_model_call(self, session: Any, model: str, messages: Any) -> Any:
        return {"model": self.to} if "think hard" in messages[-1]["text"] else None

    def __init__(self, to: str) -> None:
        self.to = to


def test_a_plugin_switches_one_call_to_another_model(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    big = {"name": "big", "type": "openai", "model": "m-big", "base_url": openai_server.base_url,
           "api_key": "k"}  # fmt: skip
    host.register(Switcher("big"), "switcher")
    openai_server.script(Reply(text="Quick."), Reply(text="Deep."), Reply(text="Quick again."))

    async def scenario(runtime: Runtime) -> None:
        for text in ("hi", "think hard about it", "bye"):
            runtime.handle(Submit("s", text))
            await runtime.wait("s")

    events = drive(host, openai_server, tmp_path, scenario, more_generators=[big])
    assert [r.body["model"] for r in openai_server.requests] == ["m", "m-big", "m"]
    assert sum(isinstance(e, RunFinished) for e in events) == 3
    # the session's conversation goes on whole, whichever model answered
    assert [m["content"] for m in openai_server.requests[2].body["messages"][1:]] == [
        as_sent("hi", "user-input-1"), "Quick.", as_sent("think hard about it", "user-input-2"),
        "Deep.", as_sent("bye", "user-input-3")]  # fmt: skip


def test_a_model_that_does_not_resolve_fails_the_run_naming_it(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    host.register(Switcher("nowhere"), "switcher")

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(Submit("s", "think hard"))
        await runtime.wait("s")

    events = drive(host, openai_server, tmp_path, scenario)
    (failed,) = [e for e in events if isinstance(e, RunFailed)]
    assert "plugin 'switcher': tai_before_model_call asked for the model 'nowhere'" in (
        failed.message
    )
    assert openai_server.requests == []


class Ticks:
    __name__ = "ticks"

    def __init__(self) -> None:
        self.count = 0
        self.twice = threading.Event()

    @hookimpl
    def tai_schedule_tick(self, now: float) -> None:
        self.count += 1
        if self.count >= 2:
            self.twice.set()


def test_the_schedule_ticks_while_sessions_are_idle(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    ticks = Ticks()
    host.register(ticks, "ticks")

    async def scenario(runtime: Runtime) -> None:  # no submit: the session stays idle
        assert await asyncio.to_thread(ticks.twice.wait, 30)

    drive(host, openai_server, tmp_path, scenario, schedule_interval=0.01)
    assert ticks.count >= 2
