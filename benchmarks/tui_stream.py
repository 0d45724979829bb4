"""Typing in the chat's input while a reply streams in at 2,000 chunks per second.

Target: the median time from a key reaching tai to the screen showing it (the input's
buffer holding the character and a redraw done after it) at most 50 ms. The terminal UI
of ``tai ai`` runs with its real renderer into a VT100 output whose bytes are discarded,
keys come through a pipe, and the reply arrives as the runtime would deliver it: text
events of a few characters, 2,000 a second, each followed by a redraw request. Baseline,
alternated with every key: the same key with no reply streaming.

Method: 30 keys of each kind after a warm-up, 60 ms apart; medians (min-max).
"""

from __future__ import annotations

import asyncio
import io
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import finish
from _timing import Series, ratio
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from tai_core.events import RoundStarted, TextReceived
from tai_core.tui._app import TaiApp
from tai_core.tui._state import UiState

KEYS = 30
RATE = 2000
TARGET = "50 ms"
TARGET_S = 0.050


async def measure() -> tuple[Series, Series]:
    state = UiState("s")
    state.apply(RoundStarted("s", 1, 1))
    output = Vt100_Output(io.StringIO(), lambda: Size(rows=40, columns=120), term="xterm")
    rendered: list[float] = []
    with create_pipe_input() as pipe:
        app = TaiApp(state, lambda: None, lambda *_: None, chat=lambda text: None,
                     input=pipe, output=output)  # fmt: skip
        app.application.after_render += lambda _: rendered.append(time.perf_counter())
        running = asyncio.ensure_future(app.application.run_async())
        streaming = False

        async def stream() -> None:
            while True:
                if streaming:
                    state.apply(TextReceived("s", 1, "word "))
                    app.invalidate()
                await asyncio.sleep(1 / RATE)

        streamer = asyncio.ensure_future(stream())

        async def echo(char: str) -> float:
            start = time.perf_counter()
            pipe.send_text(char)
            while not (app.entry.text.endswith(char) and rendered and rendered[-1] > start):
                await asyncio.sleep(0.0005)
            return time.perf_counter() - start

        values: dict[str, list[float]] = {"streaming": [], "idle": []}
        for index in range(KEYS + 1):
            for name in ("streaming", "idle") if index % 2 else ("idle", "streaming"):
                streaming = name == "streaming"
                await asyncio.sleep(0.06)
                took = await echo("ab"[index % 2])
                if index:  # the first of each is the warm-up
                    values[name].append(took)
        streamer.cancel()
        app.application.exit()
        await running
    return Series(tuple(values["streaming"])), Series(tuple(values["idle"]))


def main() -> None:
    streaming, idle = asyncio.run(measure())
    finish(
        f"tui_stream: a key typed while a reply streams at {RATE} chunks/s is on the screen "
        f"after {streaming.text()} = {ratio(streaming, idle).text('x', 1)} the same key with "
        f"nothing streaming ({idle.text()}); medians (min-max) of {KEYS} alternated keys; "
        f"target <= {TARGET}",
        {f"<= {TARGET}": streaming.median <= TARGET_S},
    )


if __name__ == "__main__":
    main()
