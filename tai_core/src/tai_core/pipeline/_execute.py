"""Running a successful reply's blocks: in the protocol's order, through the hooks.

Blocks run after the reply has ended (deferred execution), one at a time, in a worker
thread so the event loop stays responsive (a cancel is seen at once). Round-triggering
kinds run first in the order of the protocol — change, the tests (go-test, pytest),
go-src, ingest, shell, continue — then the other kinds by name, each kind's blocks in
reply order; signal kinds (``runs = False``: summary, done, plans, responses) are
interpreted by the loop, not run.
``tai_run_block`` decides how a block runs, so a policy plugin can refuse one and a
wrapper can time or rewrite it. A kind that cannot run, or that raises, yields a failed
result the model reads, never a crash of the run. A cancel kills the programs blocks are
running (``tai_core.blocks.stop_all``), so it takes effect at once.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tai_core.blocks import (
    Block,
    BlockKind,
    BlockNotRunnableError,
    BlockResult,
    RunContext,
    cancellable,
    stop_all,
)
from tai_core.events import BlockFinished, BlockStarted, Event
from tai_core.plugins._failures import PluginHookError

#: The order in which round-triggering kinds run after a reply (then the others, by name):
#: each language's tests, then its sources (as the original tool ran go-test before go-src).
COMPONENT_ORDER: tuple[str, ...] = (
    "change", "go-test", "pytest", "go-src", "py-src", "ingest", "shell", "continue",
)  # fmt: skip


class BlockExecutor:
    """Runs blocks for one session."""

    def __init__(
        self,
        kinds: Mapping[str, BlockKind],
        hook: Any,
        emit: Callable[[Event], None],
        context: RunContext,
        session_id: str,
    ) -> None:
        self.kinds = kinds
        self.hook = hook
        self.emit = emit
        self.context = context
        self.session_id = session_id

    def in_order(self, blocks: Iterable[Block]) -> list[Block]:
        """The blocks that run, in the order they run."""
        order = {name: index for index, name in enumerate(COMPONENT_ORDER)}
        runnable = [block for block in blocks if self.kinds[block.kind].runs]
        return sorted(
            runnable,
            key=lambda b: (
                order.get(b.kind, len(order)),
                "" if b.kind in order else b.kind,
                b.start,
            ),
        )

    async def run(self, block: Block, kind: BlockKind, round_no: int) -> BlockResult:
        """Run ``block`` through ``tai_run_block``; its result, failed or not."""
        session = self.session_id
        self.emit(BlockStarted(session, round_no, block))
        cancelled = threading.Event()

        def run_block() -> BlockResult | None:
            with cancellable(cancelled):
                answer: BlockResult | None = self.hook.tai_run_block(
                    block=block, kind=kind, context=self.context
                )
                return answer

        try:
            result = await asyncio.to_thread(run_block)
        except asyncio.CancelledError:
            cancelled.set()  # a program the thread starts from now on dies as it starts
            stop_all()  # the thread's program dies now, so the thread ends with it
            raise
        except BlockNotRunnableError as error:
            result = BlockResult(kind=block.kind, ok=False, text=str(error))
        except PluginHookError as error:  # a plugin's decision failed: it names itself
            result = BlockResult(
                kind=block.kind, ok=False, text=f"{block.kind} block failed: {error}"
            )
        except Exception as error:  # noqa: BLE001 - a failing kind is reported to the model
            result = BlockResult(
                kind=block.kind,
                ok=False,
                text=f"{block.kind} block failed: {type(error).__name__}: {error}",
            )
        if result is None:
            result = BlockResult(
                kind=block.kind, ok=False, text=f"no plugin ran the {block.kind} block"
            )
        self.emit(BlockFinished(session, round_no, block, result))
        return result
