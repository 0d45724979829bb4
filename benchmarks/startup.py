"""Median wall time of `tai --help` and `tai plugins` (target: at most 150 ms each).

Runs the installed `tai` script of this environment as a user would, 21 times each after
a warm-up, with byte-code compiled first (as an installed package has it): the figure is
start-up as users meet it, not the cost of compiling sources on every run.
"""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RUNS = 21


def median_ms(command: list[str], env: dict[str, str], cwd: str) -> float:
    subprocess.run(command, env=env, cwd=cwd, capture_output=True, check=True)  # warm-up
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(command, env=env, cwd=cwd, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    for folder in ("tai_core", "tai_blocks", "tai_providers", "tai_sandbox"):
        compileall.compile_dir(REPO / folder / "src", quiet=1)
    tai = str(Path(sys.executable).with_name("tai"))
    with tempfile.TemporaryDirectory() as home:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TAI_")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["TAI_CONFIG_DIR"] = home
        help_ms = median_ms([tai, "--help"], env, home)
        plugins_ms = median_ms([tai, "plugins"], env, home)
    print(
        f"startup: tai --help {help_ms:.0f} ms, tai plugins {plugins_ms:.0f} ms "
        f"(median of {RUNS}; target <= 150 ms each)"
    )


if __name__ == "__main__":
    main()
