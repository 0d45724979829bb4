"""Steering a streaming reply, through the runtime: from the ``Steer`` command to the
arrival at the model of the request that carries the steering text.

Target: at most 200 ms. Method: a runtime in this process keeping its sessions in a real
database, the fake model server in its own process sending half of every reply and then
stalling (reporting each request's arrival on the system-wide monotonic clock); the steer
is sent once the first text has arrived, and the turn is cancelled after the second
request. Baseline, alternated with it: the first submit of a new session, from the command
to its request's arrival (the same request without the interruption before it). 15 rounds
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
from _timing import Series, difference

from tai_core.runtime import Steer, Submit, TextReceived

RUNS = 15
TARGET = "200 ms"


async def steered(bench: Bench) -> float:
    session = bench.start()
    bench.runtime.handle(Submit(session, "tell me everything"))
    await bench.arrival()
    await bench.until(TextReceived, session)
    sent = time.monotonic()
    bench.runtime.handle(Steer(session, "only the short version"))
    took = await bench.arrival() - sent
    await bench.cancel(session)
    return took


async def submitted(bench: Bench) -> float:
    session = bench.start()
    sent = time.monotonic()
    bench.runtime.handle(Submit(session, "tell me everything"))
    took = await bench.arrival() - sent
    await bench.cancel(session)
    return took


async def measure(bench: Bench) -> tuple[Series, Series]:
    times = await alternate(
        {"steer": lambda: steered(bench), "submit": lambda: submitted(bench)}, RUNS
    )
    return times["steer"], times["submit"]


def main() -> None:
    reply = {"text": "first half, second half", "chunks": 2, "fault": "stall"}
    with Served(report=True, **reply) as served, tempfile.TemporaryDirectory() as temp:
        steer, submit = asyncio.run(measure(Bench(served, Path(temp))))
    finish(
        f"runtime_steer: Steer to the steered request's arrival {steer.text('ms', 1)} against "
        f"{submit.text('ms', 1)} from a submit to its request (the interruption's own "
        f"{difference(steer, submit).text('ms', 1)}); medians (min-max) of {RUNS} alternated "
        f"rounds after a warm-up; target <= 200 ms",
        {"<= 200 ms": steer.median <= 0.200},
    )


if __name__ == "__main__":
    main()
