"""A submit on a long session: from the command to the request's arrival at the model.

Target: at most 20 ms on a session of 200 turns (no growth with the number of turns beyond
the prompt's own size). Method: a runtime in this process keeping its sessions in a real
database (as ``tai ai`` does), the fake model server in its own process answering every
request with a short reply and reporting each arrival on the system-wide monotonic clock;
a session is driven through 200 turns, then submits on it (``long``) alternate with the
first submit of a new session (``fresh``: the same work with nothing before it). 15 rounds
after a warm-up; medians (min-max).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import finish
from _runtime import Bench, alternate
from _server import Served
from _timing import Series, difference

RUNS = 15
TURNS = 200
TARGET = "20 ms"


async def measure(bench: Bench) -> tuple[Series, Series]:
    long = bench.start()
    for number in range(TURNS):
        await bench.turn(long, f"question {number}")

    async def on_the_long_one() -> float:
        return await bench.turn(long, "measured")

    async def on_a_new_one() -> float:
        return await bench.turn(bench.start(), "measured")

    times = await alternate({"long": on_the_long_one, "fresh": on_a_new_one}, RUNS)
    return times["long"], times["fresh"]


def main() -> None:
    with Served(report=True, text="Fine.") as served, tempfile.TemporaryDirectory() as temp:
        bench = Bench(served, Path(temp))
        long, fresh = asyncio.run(measure(bench))
    finish(
        f"runtime_submit: submit to request on a session of {TURNS} turns "
        f"{long.text('ms', 1)} against {fresh.text('ms', 1)} on a new session (the turns' "
        f"own {difference(long, fresh).text('ms', 1)}); medians (min-max) of {RUNS} "
        f"alternated rounds after a warm-up; target <= 20 ms",
        {"<= 20 ms": long.median <= 0.020},
    )


if __name__ == "__main__":
    main()
