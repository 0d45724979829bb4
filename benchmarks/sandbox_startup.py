"""Median start-up overhead of the sandbox (target: at most 50 ms).

Runs `tai sandbox run -- true` — tai enters its sandbox, then runs a trivial command —
and the same with `TAI_NO_SANDBOX=1`, 21 times each after a warm-up, in a git working
directory, alternating the two so machine noise hits both alike; the figure is the
difference of the medians: what entering the sandbox adds to a run (asking `go env`,
forking, namespaces, the read-only view).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 21


def main() -> None:
    tai = str(Path(sys.executable).with_name("tai"))
    with tempfile.TemporaryDirectory() as home:
        work = Path(home) / "work"
        work.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=work, check=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("TAI_")}
        env["TAI_CONFIG_DIR"] = str(Path(home) / "config")
        plain = {**env, "TAI_NO_SANDBOX": "1"}
        command = [tai, "sandbox", "run", "--", "true"]
        times: dict[str, list[float]] = {"sandboxed": [], "plain": []}
        for run in range(RUNS + 1):
            for name, environ in (("sandboxed", env), ("plain", plain)):
                start = time.perf_counter()
                subprocess.run(command, env=environ, cwd=work, capture_output=True, check=True)
                if run:  # the first round warms up
                    times[name].append(time.perf_counter() - start)
    sandboxed = statistics.median(times["sandboxed"]) * 1000
    plain_ms = statistics.median(times["plain"]) * 1000
    print(
        f"sandbox start-up overhead: {sandboxed - plain_ms:.0f} ms (median of {RUNS}: "
        f"{sandboxed:.0f} ms sandboxed, {plain_ms:.0f} ms with TAI_NO_SANDBOX=1; "
        "target <= 50 ms)"
    )


if __name__ == "__main__":
    main()
