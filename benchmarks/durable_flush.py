"""What durability costs: a durable flush of 200 changed files against a non-durable one.

Durable (the default, ``durable = true``) syncs every staged file and the directories it
touches before the commit point, and the target directories before the journal goes, so a
power loss leaves every file wholly old or wholly new; non-durable (``durable = false``)
survives only the death of the process. Same files as ``benchmarks/flush.py`` (mixed sizes,
10 directories). The directory is made beside the current one by default, because /tmp is
often a tmpfs where a sync costs nothing; give another with ``TAI_BENCH_DIR``. Medians of
9 runs; prints one line; run with ``uv run python benchmarks/durable_flush.py``.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from flush import backdate, contents, flush, seed  # the sibling benchmark's files

RUNS = 9


def main() -> None:
    fast_times, durable_times = [], []
    base = os.environ.get("TAI_BENCH_DIR") or str(Path.cwd())
    with tempfile.TemporaryDirectory(dir=base, prefix=".tai-bench-") as directory:
        root = Path(directory)
        seed(root)
        for run in range(RUNS):
            files = contents(2 * run + 1)
            backdate(root, files)
            fast_times.append(flush(root, files, durable=False))
            backdate(root, files)
            durable_times.append(flush(root, contents(2 * run + 2), durable=True))
    fast_ms = statistics.median(fast_times) * 1000
    durable_ms = statistics.median(durable_times) * 1000
    print(
        f"durable flush of {len(files)} files: {durable_ms:.1f} ms vs non-durable "
        f"{fast_ms:.1f} ms = {durable_ms / fast_ms:.1f}x (medians of {RUNS})"
    )


if __name__ == "__main__":
    main()
