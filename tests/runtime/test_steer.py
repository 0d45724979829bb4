"""Steering a running turn (tai_core.pipeline._steer) through the runtime, against the real
pipeline and a local model server: a streaming reply is interrupted and asked again with the
user's words, what it had said kept; words steered while blocks run go with the next
request, or with one more round when the turn would end; a steered attempt uses no retry."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from tai_core import BlockKind, BlockResult, hookimpl
from tai_core.pipeline._steer import INTERRUPTED, STEERED_HEADING
from tai_core.runtime import (
    Cancel,
    Event,
    Notice,
    RunFinished,
    Runtime,
    Steer,
    Submit,
    TextReceived,
)
from tests.conftest import as_sent
from tests.runtime.conftest import drive_server_session
from tests.servers import FakeModelServer, Reply


class Wait(BlockKind):
    """A block that runs until the test lets it end."""

    name = "wait"
    commands = frozenset({"next"})
    prompt_section = "# wait blocks"
    restatement = "wait"
    disabled_notice = "no"
    released = threading.Event()
    started = threading.Event()

    def execute(self, block: Any, context: Any) -> BlockResult:
        del block, context
        self.started.set()
        assert self.released.wait(30)
        return BlockResult(kind="wait", ok=True, text="waited", triggers_round=False)


class WaitPlugin:
    __name__ = "wait"

    @hookimpl
    def tai_register_block_kinds(self, register: Any) -> None:
        register(Wait())


def run(
    host: Any, server: FakeModelServer, tmp_path: Path, scenario: Any, retries: int = 3
) -> list[Event]:
    return drive_server_session(
        host, server, tmp_path, scenario, run_options={"max_retries": retries}
    )


def contents(server: FakeModelServer, index: int) -> list[str]:
    return [m["content"] for m in server.requests[index].body["messages"][1:]]


async def until(condition: Any) -> None:
    """Until ``condition()`` holds (an observation of the server or a block)."""
    for _ in range(2000):
        if condition():
            return
        await asyncio.sleep(0.01)
    pytest.fail("the condition never held")


def test_a_streaming_reply_is_interrupted_and_asked_again(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(text="Use Java for this, because", fault="stall"),
                         Reply(text="In Python, then."))  # fmt: skip

    async def scenario(runtime: Runtime) -> None:
        streaming = runtime.bus.subscribe()
        runtime.handle(Submit("s", "which language?"))
        async for event in streaming:  # the first half of the reply has come
            if isinstance(event, TextReceived):
                break
        runtime.handle(Steer("s", "I meant Python"))
        await runtime.wait("s")
        streaming.close()

    events = run(host, openai_server, tmp_path, scenario, retries=0)  # steering is no retry
    assert any(isinstance(e, RunFinished) for e in events)
    question, partial, steered = contents(openai_server, 1)
    assert (question, steered) == (as_sent("which language?", "user-input-1"), "I meant Python")
    assert partial.startswith("Use Java") and partial.endswith(f"\n\n{INTERRUPTED}")
    assert [n.message for n in events if isinstance(n, Notice)] == [
        "steered: the reply was interrupted"
    ]


def test_words_steered_while_blocks_run_get_one_more_round(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    host.register(WaitPlugin(), "wait")
    Wait.released.clear()
    Wait.started.clear()
    openai_server.script(Reply(text="Checking.\n<<松柏 wait\nnow\n松柏\n"), Reply(text="Done."))

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(Submit("s", "check it"))
        await until(Wait.started.is_set)
        runtime.handle(Steer("s", "and be brief"))
        Wait.released.set()
        await runtime.wait("s")

    run(host, openai_server, tmp_path, scenario)
    assert len(openai_server.requests) == 2
    last = contents(openai_server, 1)[-1]
    assert last.endswith(f"{STEERED_HEADING}\n\nand be brief")


def test_nothing_running_is_nothing_to_steer(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    async def scenario(runtime: Runtime) -> None:
        runtime.handle(Steer("s", "hello"))

    events = run(host, openai_server, tmp_path, scenario)
    assert [e.message for e in events if isinstance(e, Notice)] == [
        "nothing runs to steer; submit it instead"
    ]
    assert openai_server.requests == []


def test_nothing_running_is_nothing_to_cancel(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    """A cancel that finds nothing running is answered (a client waiting on it would not
    know whether it was lost), and leaves the session as it was: the next turn runs."""
    openai_server.script(Reply(text="Ran."))

    async def scenario(runtime: Runtime) -> None:
        runtime.handle(Cancel("s"))
        runtime.handle(Submit("s", "go"))
        await runtime.wait("s")

    events = run(host, openai_server, tmp_path, scenario)
    notices = [(e.level, e.message) for e in events if isinstance(e, Notice)]
    assert notices == [("warning", "nothing runs to cancel")]
    assert len(openai_server.requests) == 1
    assert any(isinstance(e, RunFinished) for e in events)
