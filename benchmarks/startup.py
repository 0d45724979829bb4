"""Median wall time of `tai --help` and `tai plugins` (target: at most 5x `python -c pass`).

Method: the installed `tai` script of this environment, run as a user would, in a new
process each time, with byte-code compiled first (as an installed package has it: the
figure is start-up as users meet it, not the cost of compiling sources on every run).
The warm-up round fills the launch cache (``tai_core.cli._launch``), so the rounds measure
what every run but the first after an install or an edit costs; the same commands with
``TAI_NO_LAUNCH_CACHE=1`` (every plugin loaded, no target) are measured beside them.
Baseline, alternated with all of them: the bare interpreter of the same environment,
``python -c pass``. 21 rounds after a warm-up round; medians (min-max), and the ratio to
the bare interpreter round by round. The target is judged on the medians of the ratios.
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
TARGET = "5x python -c pass"
LIMIT = 5.0


def main() -> None:
    compile_sources()
    with tempfile.TemporaryDirectory() as home:
        env = environment(Path(home))
        full = {**env, "TAI_NO_LAUNCH_CACHE": "1"}
        times = alternate(
            {
                "--help": lambda: timed(lambda: run([TAI, "--help"], env, home)),
                "plugins": lambda: timed(lambda: run([TAI, "plugins"], env, home)),
                "--help (full)": lambda: timed(lambda: run([TAI, "--help"], full, home)),
                "plugins (full)": lambda: timed(lambda: run([TAI, "plugins"], full, home)),
                "bare": lambda: timed(lambda: run(BARE, env, home)),
            },
            RUNS,
        )
    bare = times["bare"]
    ratios = {name: ratio(series, bare) for name, series in times.items() if name != "bare"}
    checks = {f"{name} <= {LIMIT:g}x": ratios[name].median <= LIMIT
              for name in ("--help", "plugins")}  # fmt: skip
    shown = ", ".join(f"tai {name} {times[name].text()} = {ratios[name].text('x', 1)}"
                      for name in ratios)  # fmt: skip
    finish(
        f"startup: {shown} the bare interpreter (python -c pass: {bare.text()}); (full): "
        f"launch cache off; medians (min-max) of {RUNS} alternated rounds; target "
        f"<= {LIMIT:g}x for --help and plugins",
        checks,
    )


if __name__ == "__main__":
    main()
