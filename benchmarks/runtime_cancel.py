"""Cancel of a streaming reply, through the runtime: from the ``Cancel`` command to the
``RunCancelled`` event.

Target: at most 100 ms. Method: a runtime in this process keeping its sessions in a real
database, the fake model server in its own process sending half of every reply and then
stalling, so the turn is waiting on the socket when the command comes (sent once the
first text has arrived). Baseline, alternated with it: the same wait without tai — an
asyncio task reading the same stalled stream with httpx, cancelled and awaited. 15 rounds
after a warm-up; medians (min-max).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import finish
from _runtime import Bench, alternate
from _server import Served
from _timing import Series

from tai_core.runtime import Cancel, RunCancelled, Submit, TextReceived

RUNS = 15
TARGET = "100 ms"


async def cancelled_turn(bench: Bench) -> float:
    session = bench.start()
    bench.runtime.handle(Submit(session, "tell me everything"))
    await bench.arrival()
    await bench.until(TextReceived, session)
    sent = time.monotonic()
    bench.runtime.handle(Cancel(session))
    took = await bench.until(RunCancelled, session) - sent
    await bench.runtime.wait(session)
    return took


async def cancelled_read(base_url: str, served: Served) -> float:
    import httpx

    async def read() -> None:
        async with httpx.AsyncClient(timeout=60) as client:
            body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "x"}]}
            async with client.stream("POST", f"{base_url}/chat/completions", json=body) as reply:
                async for _ in reply.aiter_bytes():
                    started.set()

    started = asyncio.Event()
    task = asyncio.get_running_loop().create_task(read())
    await asyncio.to_thread(served.next_arrival)
    await started.wait()
    sent = time.monotonic()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return time.monotonic() - sent


async def measure(bench: Bench, served: Served) -> tuple[Series, Series]:
    times = await alternate(
        {"tai": lambda: cancelled_turn(bench),
         "bare": lambda: cancelled_read(served.base_url, served)},
        RUNS,
    )  # fmt: skip
    return times["tai"], times["bare"]


def main() -> None:
    reply = {"text": "first half, second half", "chunks": 2, "fault": "stall"}
    with Served(report=True, **reply) as served, tempfile.TemporaryDirectory() as temp:
        bench = Bench(served, Path(temp))
        tai, bare = asyncio.run(measure(bench, served))
    finish(
        f"runtime_cancel: Cancel to RunCancelled {tai.text('ms', 1)} against "
        f"{bare.text('ms', 1)} for a bare cancelled httpx read of the same stream; medians "
        f"(min-max) of {RUNS} alternated rounds after a warm-up; target <= 100 ms",
        {"<= 100 ms": tai.median <= 0.100},
    )


if __name__ == "__main__":
    main()
