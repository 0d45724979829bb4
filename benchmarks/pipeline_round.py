"""Pipeline overhead per round, with the replay model (no model time), 20 blocks per reply.

Target: median at most 20 ms per round. Each reply carries 20 blocks — named responses
(validated and written to the session tree), a summary, and a continue block that starts
the next round — streamed in the replay provider's 16-character pieces through the
runtime, the bus (one subscriber draining it, as the CLI printer does), the parser, the
hooks and the session tree. Baseline, alternated with it: the same replies in the same
16-character pieces through the block parser alone (``BlockParser``), the part of a
round any reader of blocks pays. 7 rounds after a warm-up run; medians (min-max) per
round, the ratio to the baseline run by run.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import finish
from _timing import alternate, ratio

from tai_core.blocks._parser import BlockParser
from tai_core.commands._session import make_setup
from tai_core.models import resolve_model
from tai_core.plugins import LoadOptions, PluginHost
from tai_core.runtime import (
    TERMINAL_EVENTS,
    EventBus,
    RoundStarted,
    RunFinished,
    Runtime,
    StartSession,
    Submit,
)

ROUNDS = 40
RUNS = 7
PIECE = 16
TARGET = "20 ms"
DELIMITERS = ["紫藤", "松柏", "竹梅", "蘭菊", "琥珀"]


def reply(round_no: int, last: bool) -> str:
    blocks = []
    for index in range(18):
        delimiter = DELIMITERS[index % len(DELIMITERS)]
        blocks.append(
            f'<<{delimiter} response(parent="user-input-1", name="r{round_no}-{index}")\n'
            f"Answer part {index} of round {round_no}: some text of realistic length here.\n"
            f"{delimiter}"
        )
    blocks.append("<<翡翠 summary\n- answered the parts\n翡翠")
    if not last:
        blocks.append(f"<<瑪瑙 continue\nround {round_no + 1}\n瑪瑙")
    else:
        blocks.append("<<瑪瑙 done\nall parts answered\n瑪瑙")
    return "Working on it.\n\n" + "\n\n".join(blocks) + "\n"


async def run_once(host: PluginHost, path: Path, cwd: Path) -> float:
    spec = resolve_model(f"replay:{path}", {}, host.registry.providers, {})
    provider = host.registry.providers[spec.provider]
    provider.rewind()
    setup = make_setup(
        host, {}, (provider, spec), command="go", system="SYSTEM", require_completion=True,
        cwd=cwd,
    )  # fmt: skip
    runtime = Runtime(host.pm.hook, EventBus())
    subscription = runtime.bus.subscribe()
    start = time.perf_counter()
    runtime.handle(StartSession(setup))
    runtime.handle(Submit(setup.options.session_id, "Answer all parts.", "task"))
    rounds = 0
    async for event in subscription:
        rounds += isinstance(event, RoundStarted)
        if isinstance(event, TERMINAL_EVENTS):
            if not isinstance(event, RunFinished):
                raise SystemExit(f"the run did not finish: {event}")
            break
    if rounds != ROUNDS:
        raise SystemExit(f"expected {ROUNDS} rounds, the run had {rounds}")
    return (time.perf_counter() - start) / ROUNDS


def parse_once(replies: list[str]) -> float:
    """Seconds per round of the parser alone on ``replies``."""
    start = time.perf_counter()
    for text in replies:
        parser = BlockParser()
        for at in range(0, len(text), PIECE):
            parser.feed(text[at : at + PIECE])
        parser.finish()
    return (time.perf_counter() - start) / len(replies)


def main() -> None:
    host = PluginHost(LoadOptions())
    host.load_entry_points()
    replies = [reply(n, n == ROUNDS) for n in range(1, ROUNDS + 1)]
    with tempfile.TemporaryDirectory() as directory:
        cwd = Path(directory)
        path = cwd / "model.replay"
        path.write_text("".join(f"@@@ reply\n{text}" for text in replies), encoding="utf-8")
        times = alternate(
            {
                "pipeline": lambda: asyncio.run(run_once(host, path, cwd)),
                "parser": lambda: parse_once(replies),
            },
            RUNS,
        )
    pipeline, parser = times["pipeline"], times["parser"]
    finish(
        f"pipeline_round: {pipeline.text('ms', 1)} per round = "
        f"{ratio(pipeline, parser).text('x', 0)} the block parser alone "
        f"({parser.text('ms', 2)}); 20 blocks per reply, {ROUNDS} "
        f"rounds, medians (min-max) of {RUNS} alternated runs; target <= 20 ms",
        {"<= 20 ms": pipeline.median <= 0.02},
    )


if __name__ == "__main__":
    main()
