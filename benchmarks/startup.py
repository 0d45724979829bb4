"""Median wall time of `tai --help` and `tai plugins` (target: at most 5x `python -c pass`).

Method: tai as users install it — the checkout's distributions built as wheels into an
environment of the benchmark's own, byte-code compiled (``_procs.install``) — its `tai`
script run as a user would, in a new process each time (the figure is start-up as users
meet it: neither the cost of compiling sources on every run nor that of the checkout's
editable sources, fifty directories on ``sys.path``).
The warm-up round fills the launch cache (``tai_core.cli._launch``), so the rounds measure
what every run but the first after an install or an edit costs; the same commands with
``TAI_NO_LAUNCH_CACHE=1`` (every plugin loaded, no target) are measured beside them.
Baseline, alternated with all of them: the bare interpreter of that environment,
``python -c pass``. 21 rounds after a warm-up round; medians (min-max), and the ratio to
the bare interpreter round by round. The target is judged on the medians of the ratios.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _procs import environment, install, run
from _report import finish
from _timing import alternate, ratio, timed

RUNS = 21
TARGET = "5x python -c pass"
LIMIT = 5.0


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        tai, bare_command = install(Path(home) / "installed")
        env = environment(Path(home))
        full = {**env, "TAI_NO_LAUNCH_CACHE": "1"}
        times = alternate(
            {
                "--help": lambda: timed(lambda: run([tai, "--help"], env, home)),
                "plugins": lambda: timed(lambda: run([tai, "plugins"], env, home)),
                "--help (full)": lambda: timed(lambda: run([tai, "--help"], full, home)),
                "plugins (full)": lambda: timed(lambda: run([tai, "plugins"], full, home)),
                "bare": lambda: timed(lambda: run(bare_command, env, home)),
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
