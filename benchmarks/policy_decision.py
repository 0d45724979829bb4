"""Median time of one shell-policy decision over the test corpus (target: at most 1 ms).

Every command of `tests/sandbox/corpus.py` (destructive and ordinary) is decided in a git
working directory, 20 times each after a warm-up that imports tree-sitter and fills the
caches; a command's time is the median of its 20, and the figure is the median over the
corpus (the slowest command is shown too).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REPEATS = 20


def main() -> None:
    sys.path.insert(0, str(REPO))
    from tai_sandbox.policy import decide
    from tests.sandbox.corpus import DESTRUCTIVE, ORDINARY

    corpus = DESTRUCTIVE + ORDINARY
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(["git", "init", "-q"], cwd=work, check=True)
        for command in corpus:
            decide(command, work, {})
        medians = []
        for command in corpus:
            times = []
            for _ in range(REPEATS):
                start = time.perf_counter()
                decide(command, work, {})
                times.append(time.perf_counter() - start)
            medians.append(statistics.median(times) * 1000)
    print(
        f"policy decision: median {statistics.median(medians):.3f} ms per command, slowest "
        f"{max(medians):.3f} ms ({len(corpus)} commands; target <= 1 ms)"
    )


if __name__ == "__main__":
    main()
