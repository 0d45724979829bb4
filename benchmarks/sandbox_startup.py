"""Median start-up overhead of the sandbox (target: at most 50 ms).

Method: `tai sandbox run -- true` — tai enters its sandbox, then runs a trivial command —
against the baseline, the same with `TAI_NO_SANDBOX=1`, in a git working directory, each
in a new process, alternated so machine noise hits both alike; 21 rounds after a warm-up
round. The figure is the difference round by round, median (min-max): what entering the
sandbox adds to a run (asking `go env`, forking, namespaces, the read-only view).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _procs import TAI, environment, run
from _report import finish
from _timing import alternate, difference, timed

RUNS = 21
TARGET = "50 ms"


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        work = Path(home) / "work"
        work.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=work, check=True)
        env = environment(Path(home))
        plain = {**env, "TAI_NO_SANDBOX": "1"}
        command = [TAI, "sandbox", "run", "--", "true"]
        times = alternate(
            {
                "sandboxed": lambda: timed(lambda: run(command, env, work)),
                "plain": lambda: timed(lambda: run(command, plain, work)),
            },
            RUNS,
        )
    overhead = difference(times["sandboxed"], times["plain"])
    finish(
        f"sandbox start-up overhead: {overhead.text()} ({times['sandboxed'].text()} sandboxed "
        f"against {times['plain'].text()} with TAI_NO_SANDBOX=1); medians (min-max) of {RUNS} "
        "alternated rounds; target <= 50 ms",
        {"<= 50 ms": overhead.median <= 0.05},
    )


if __name__ == "__main__":
    main()
