"""The cost of a checkpoint of a 10,000-file tree: nothing changed, and 10 files changed.

A checkpoint (``tai_blocks.checkpoints``) walks the tree with git's ignore rules, stats
every file, hashes only files whose stat changed since the last one and appends a
manifest. Baseline, measured in the same run: a bare walk that only stats every file
(``os.walk`` + ``lstat``), the floor of any checkpoint that notices every change. Targets:
nothing changed <= 150 ms, 10 files changed <= 200 ms. The tree is ``_tree.make_tree``;
medians of 15 runs after one first checkpoint (which hashes everything); prints one line;
run with ``uv run python benchmarks/checkpoint.py``.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _tree import FILES, change, make_tree

RUNS = 15


def bare_walk(root: Path) -> float:
    start = time.perf_counter()
    for directory, _, names in os.walk(root):
        for name in names:
            os.lstat(os.path.join(directory, name))
    return time.perf_counter() - start


def main() -> None:
    from tai_blocks.checkpoints._store import CheckpointStore

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
    same_ms, changed_ms = statistics.median(same) * 1000, statistics.median(changed) * 1000
    walk_ms = statistics.median(walk) * 1000
    verdict = "ok" if same_ms <= 150 and changed_ms <= 200 else "OVER TARGET"
    print(
        f"checkpoint of {FILES} files: nothing changed {same_ms:.0f} ms (target <= 150), "
        f"10 changed {changed_ms:.0f} ms (target <= 200) — {verdict}; bare stat walk "
        f"{walk_ms:.0f} ms, first checkpoint {first * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
