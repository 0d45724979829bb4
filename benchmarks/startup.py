"""Median wall time of `tai --help` and `tai plugins` (target: at most 150 ms each).

Method: the installed `tai` script of this environment, run as a user would, in a new
process each time, with byte-code compiled first (as an installed package has it: the
figure is start-up as users meet it, not the cost of compiling sources on every run).
Baseline, alternated with both: the bare interpreter of the same environment,
``python -c pass``. 21 rounds after a warm-up round; medians (min-max), and the ratio to
the bare interpreter round by round. The target is judged on the medians.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _procs import BARE, TAI, compile_sources, environment, run
from _report import finish
from _timing import alternate, ratio, timed

RUNS = 21
TARGET = "150 ms"


def main() -> None:
    compile_sources()
    with tempfile.TemporaryDirectory() as home:
        env = environment(Path(home))
        times = alternate(
            {
                "help": lambda: timed(lambda: run([TAI, "--help"], env, home)),
                "plugins": lambda: timed(lambda: run([TAI, "plugins"], env, home)),
                "bare": lambda: timed(lambda: run(BARE, env, home)),
            },
            RUNS,
        )
    bare = times["bare"]
    checks = {"--help <= 150 ms": times["help"].median <= 0.15,
              "plugins <= 150 ms": times["plugins"].median <= 0.15}  # fmt: skip
    finish(
        f"startup: tai --help {times['help'].text()} = {ratio(times['help'], bare).text('x', 1)}"
        f", tai plugins {times['plugins'].text()} = {ratio(times['plugins'], bare).text('x', 1)}"
        f" the bare interpreter (python -c pass: {bare.text()}); medians (min-max) of {RUNS} "
        "alternated rounds; target <= 150 ms each",
        checks,
    )


if __name__ == "__main__":
    main()
