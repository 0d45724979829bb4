"""The time of ``tai undo`` after a round that changed 10 files of a 10,000-file tree.

Measured as the user meets it: the real ``tai`` script in a subprocess (start-up, plugin
loading, reading the checkpoint log, a scan of the tree, the restore of the 10 files).
Each run records a checkpoint, changes 10 files, records the run's end, then times
``tai undo``. Baseline, measured in the same run: ``tai --version``, the start-up every
command pays. Target: <= 300 ms. The tree is ``_tree.make_tree``; medians of 9 runs;
prints one line; run with ``uv run python benchmarks/undo.py``.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _tree import FILES, change, make_tree

RUNS = 9
TAI = str(Path(sys.executable).with_name("tai"))


def timed(*args: str, cwd: Path) -> float:
    start = time.perf_counter()
    result = subprocess.run([TAI, *args], cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"tai {' '.join(args)} failed: {result.stderr}")
    return elapsed


def main() -> None:
    from tai_blocks.checkpoints._store import CheckpointStore

    limit = 10 * 1024 * 1024
    with tempfile.TemporaryDirectory() as directory:
        root = make_tree(Path(directory))
        store = CheckpointStore(root)
        store.record("warm", 1, "write", limit)
        undo, start_up = [], []
        for run in range(RUNS):
            store.record(f"bench{run}", 1, "write", limit)
            change(root, 10, run)
            store.record(f"bench{run}", 1, "end", limit)
            start_up.append(timed("--version", cwd=root))
            undo.append(timed("undo", cwd=root))
    undo_ms, start_ms = statistics.median(undo) * 1000, statistics.median(start_up) * 1000
    print(
        f"tai undo of a 10-file round in {FILES} files: {undo_ms:.0f} ms (target <= 300) — "
        f"{'ok' if undo_ms <= 300 else 'OVER TARGET'}; tai --version {start_ms:.0f} ms"
    )


if __name__ == "__main__":
    main()
