"""Median time of one shell-policy decision over the test corpus (target: at most 1 ms).

Every command of `tests/sandbox/corpus.py` (destructive and ordinary) is decided in a git
working directory after a warm-up that imports tree-sitter and fills the caches, 20 times
each, alternated with the baseline, ``shlex.split`` of the same command (splitting it into
words the way a shell would, the least a decision needs); a command's time is the median
of its 20, the figure the median (min-max) over the corpus, and the ratio command by
command.
"""

from __future__ import annotations

import contextlib
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import finish
from _timing import alternate, ratio, series, timed

REPO = Path(__file__).resolve().parent.parent

REPEATS = 20
TARGET = "1 ms"


def split(command: str) -> None:
    with contextlib.suppress(ValueError):  # unbalanced quotes: the policy decides those too
        shlex.split(command)


def main() -> None:
    sys.path.insert(0, str(REPO))
    from tai_sandbox.policy import decide
    from tests.sandbox.corpus import DESTRUCTIVE, ORDINARY

    corpus = DESTRUCTIVE + ORDINARY
    decided, splits = [], []
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(["git", "init", "-q"], cwd=work, check=True)
        for command in corpus:
            times = alternate(
                {
                    "decide": lambda c=command: timed(lambda: decide(c, work, {})),
                    "split": lambda c=command: timed(lambda: split(c)),
                },
                REPEATS,
            )
            decided.append(times["decide"].median)
            splits.append(times["split"].median)
    decide_s, split_s = series(decided), series(splits)
    finish(
        f"policy decision: {decide_s.text('ms', 3)} per command = "
        f"{ratio(decide_s, split_s).text('x', 0)} shlex.split of it ({split_s.text('ms', 4)}); "
        f"medians (min-max) over {len(corpus)} commands of {REPEATS} alternated repeats each; "
        "target <= 1 ms",
        {"<= 1 ms": decide_s.median <= 0.001},
    )


if __name__ == "__main__":
    main()
