"""How a steered round counts its attempts (tai_core.pipeline._loop): the usage table numbers
the real tries only, a reply cut short after a steer is retried like any, and the text the
interrupted reply had streamed is kept exactly, however many pieces it came in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tai_core.runtime import RunFinished, Runtime, Steer, Submit, TextReceived
from tests.runtime.conftest import drive_server_session
from tests.runtime.test_steer_rules import DROP, STALL, steer_each_stall
from tests.servers import FakeModelServer, Reply


def test_the_usage_table_numbers_the_real_tries(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    openai_server.script(STALL, STALL, DROP, Reply(text="Done."))

    async def scenario(runtime: Runtime) -> None:
        await steer_each_stall(runtime, openai_server, stalls=2)

    events = drive_server_session(
        host, openai_server, tmp_path, scenario, run_options={"max_retries": 1}
    )
    (finished,) = [e for e in events if isinstance(e, RunFinished)]
    rows = [line.split()[:2] for line in finished.report.splitlines()[1:-1]]
    assert rows == [["1", "1"], ["1", "2"]]  # round 1: try 1 failed, try 2 succeeded


def test_a_reply_cut_short_after_a_steer_is_retried(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    cut = Reply(text="A reply cut by its length", finish="length")
    openai_server.script(STALL, cut, Reply(text="Done."))

    async def scenario(runtime: Runtime) -> None:
        await steer_each_stall(runtime, openai_server, stalls=1)

    drive_server_session(host, openai_server, tmp_path, scenario, run_options={"max_retries": 1})
    assert len(openai_server.requests) == 3  # the steered try, the cut one, its retry


def test_the_interrupted_text_is_kept_exactly(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    pieces = Reply(text="aa bb cc dd ee ff gg hh", chunks=4, fault="stall")  # two pieces come
    openai_server.script(pieces, Reply(text="Done."))

    async def scenario(runtime: Runtime) -> None:
        """Steer once both pieces have come (not at the first: the second may still be on
        its way, and then it is rightly not part of the interrupted reply)."""
        events = runtime.bus.subscribe()
        runtime.handle(Submit("s", "go"))
        received = ""
        async for event in events:
            if isinstance(event, TextReceived):
                received += event.text
                if received.strip() == "aa bb cc dd":
                    break
        runtime.handle(Steer("s", "correction"))
        await runtime.wait("s")
        events.close()

    drive_server_session(host, openai_server, tmp_path, scenario)
    reply = openai_server.requests[1].body["messages"][-2]["content"]
    assert reply == "aa bb cc dd\n\n[the user interrupted this reply]"
