"""A cancel that comes while a block is still getting ready: the program it starts after
the cancel is killed as it starts, instead of running on for its whole time."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tai_block_kit.run import run_captured
from tai_core import Block, BlockKind, BlockResult, RunContext, hookimpl
from tai_core.runtime import BlockStarted, Cancel, Submit
from tests.servers import FakeModelServer, Reply

from .conftest import drive_server_session

RELEASE = threading.Event()
CODES: list[int] = []


class LateStart(BlockKind):
    """Waits until the test lets it go, then starts a program of thirty seconds."""

    name = "late-start"
    commands = frozenset({"next"})
    triggers_round = True
    prompt_section = "# late-start blocks\n\nA test kind."

    def execute(self, block: Block, context: RunContext) -> BlockResult:
        RELEASE.wait(20)
        finished = run_captured(["sleep", "30"], context.cwd, 60, context=context)
        CODES.append(finished.code)
        return BlockResult(self.name, True, "slept")


class Plugin:
    @hookimpl
    def tai_register_block_kinds(self, register: Callable[[BlockKind], None]) -> None:
        register(LateStart())


def test_a_program_started_after_the_cancel_dies_at_once(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    host.register(Plugin(), "late-start")
    openai_server.script(Reply(text="<<甲乙 late-start\nnow\n甲乙\n"))
    RELEASE.clear()
    CODES.clear()

    async def scenario(runtime: Any) -> None:
        subscription = runtime.bus.subscribe()
        runtime.handle(Submit("s", "go"))
        async for event in subscription:
            if isinstance(event, BlockStarted):
                break
        runtime.handle(Cancel("s"))
        await runtime.wait("s")
        RELEASE.set()  # only now does the block start its program

    drive_server_session(host, openai_server, tmp_path, scenario)
    deadline = time.monotonic() + 20  # a bound for a program left running, not a timing
    while not CODES and time.monotonic() < deadline:
        time.sleep(0.05)
    assert CODES == [-signal.SIGKILL]
