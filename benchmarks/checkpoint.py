"""The cost of a checkpoint of a 10,000-file tree: nothing changed, and 10 files changed.

A checkpoint (``tai_checkpoints``) walks the tree with git's ignore rules, stats
every file, hashes only files whose stat changed since the last one and appends a
manifest. Baseline, measured in the same run: a bare walk that only stats every file
(``os.walk`` + ``lstat``), the floor of any checkpoint that notices every change. Targets:
nothing changed <= 150 ms, 10 files changed <= 200 ms. The tree is ``_tree.make_tree``;
the three are alternated in 15 rounds after one first checkpoint (which hashes everything,
and warms up); medians (min-max), and the ratios to the bare walk round by round; prints
one line; run with ``uv run python benchmarks/checkpoint.py``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _report import finish
from _timing import ratio, series
from _tree import FILES, change, make_tree

RUNS = 15
TARGET = "150 ms, 200 ms"


def bare_walk(root: Path) -> float:
    start = time.perf_counter()
    for directory, _, names in os.walk(root):
        for name in names:
            os.lstat(os.path.join(directory, name))
    return time.perf_counter() - start


def main() -> None:
    from tai_checkpoints._store import CheckpointStore

    with tempfile.TemporaryDirectory() as directory:
        root = make_tree(Path(directory))
        store = CheckpointStore(root)
        start = time.perf_counter()
        store.record("bench", 1, "write", 10 * 1024 * 1024)
        first = time.perf_counter() - start
        walk, same, changed = [], [], []
        for run in range(RUNS):
            walk.append(bare_walk(root))
            start = time.perf_counter()
            store.record("bench", run, "write", 10 * 1024 * 1024)
            same.append(time.perf_counter() - start)
            change(root, 10, run)
            start = time.perf_counter()
            store.record("bench", run, "run", 10 * 1024 * 1024)
            changed.append(time.perf_counter() - start)
    walk_s, same_s, changed_s = series(walk), series(same), series(changed)
    finish(
        f"checkpoint of {FILES} files: nothing changed {same_s.text()} = "
        f"{ratio(same_s, walk_s).text('x', 1)} a bare stat walk ({walk_s.text()}), 10 changed "
        f"{changed_s.text()} = {ratio(changed_s, walk_s).text('x', 1)}; first checkpoint "
        f"{first * 1000:.0f} ms; medians (min-max) of {RUNS} alternated rounds; targets "
        "<= 150 ms, <= 200 ms",
        {
            "unchanged <= 150 ms": same_s.median <= 0.15,
            "10 changed <= 200 ms": changed_s.median <= 0.2,
        },
    )


if __name__ == "__main__":
    main()
