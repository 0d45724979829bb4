"""From process start to its exit: `tai next -model local chat hi`, whole.

Target: the console script's end (``tai_core.cli._quick_exit``: every ``atexit``
function run, then out without the interpreter's teardown) saves at least a tenth of the
whole run against the same run ending with the usual teardown; no target for the run
itself (``next_latency.py`` has the start-to-request one).

Method: tai installed from the checkout's wheels, byte-code compiled (``_procs.install``),
in a directory outside any Go module that holds only the configuration, the model the
tests' fake server in a process of its own (as ``next_latency.py``). Three measures
alternated round by round, 15 rounds after a warm-up round: the run as the console script
runs it (``launch()``), the same run with an ``atexit`` function registered before the
launch — which leaves the usual teardown in force, as the quick exit is not armed then —
and the bare interpreter (``python -c pass``) of the same environment. Medians (min-max)
and the ratios, round by round.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _procs import compile_sources, install, run
from _report import finish
from _server import Served
from _timing import alternate, difference, ratio, timed
from next_latency import configure

RUNS = 15
TARGET = "the quick exit saves >= 10% of the whole run"
SAVED = 0.10

#: The console script's run; ``{before}`` registers an atexit function first, or not.
LAUNCH = """
import atexit, sys
{before}
sys.argv = ["tai", "next", "chat", "hi"]
from tai_core.cli import launch
launch()
"""


def main() -> None:
    compile_sources()
    with Served(text="hi\n") as server, tempfile.TemporaryDirectory() as temp:
        _, bare = install(Path(temp) / "installed")
        python = bare[0]
        cwd = Path(temp) / "work"
        cwd.mkdir()
        env = configure(cwd, server)

        def whole(before: str) -> float:
            return timed(lambda: run([python, "-c", LAUNCH.format(before=before)], env, cwd))

        times = alternate(
            {
                "quick": lambda: whole(""),
                "teardown": lambda: whole("atexit.register(lambda: None)"),
                "bare": lambda: timed(lambda: subprocess.run(bare, env=env, check=True)),
            },
            RUNS,
        )
    quick, teardown = times["quick"], times["teardown"]
    saved = difference(teardown, quick)
    share = ratio(saved, teardown)
    finish(
        f"run_exit: tai next start to exit {quick.text()} = "
        f"{ratio(quick, times['bare']).text('x', 1)} the bare interpreter; with the "
        f"interpreter's teardown {teardown.text()} = "
        f"{ratio(teardown, times['bare']).text('x', 1)}; the quick exit saves "
        f"{saved.text()} = {share.median:.0%} of the run; medians (min-max) of {RUNS} "
        f"rounds alternated; target: saves >= {SAVED:.0%}",
        {f"saves >= {SAVED:.0%}": share.median >= SAVED},
    )


if __name__ == "__main__":
    main()
