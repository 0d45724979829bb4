"""What durability costs: a durable flush of 200 changed files against a non-durable one.

Durable (the default, ``durable = true``) syncs every staged file and the directories it
touches before the commit point, and the target directories before the journal goes, so a
power loss leaves every file wholly old or wholly new; non-durable (``durable = false``)
survives only the death of the process. Same files as ``benchmarks/flush.py`` (mixed sizes,
10 directories). The directory is made beside the current one by default, because /tmp is
often a tmpfs where a sync costs nothing; give another with ``TAI_BENCH_DIR``. The
baseline is the non-durable flush, alternated with the durable one in 9 rounds after a
warm-up round; medians (min-max), the ratio round by round; prints one line; run with
``uv run python benchmarks/durable_flush.py``.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import finish
from _timing import ratio, series
from flush import backdate, contents, flush, seed  # the sibling benchmark's files

RUNS = 9
TARGET = "—"


def main() -> None:
    fast_times, durable_times = [], []
    base = os.environ.get("TAI_BENCH_DIR") or str(Path.cwd())
    with tempfile.TemporaryDirectory(dir=base, prefix=".tai-bench-") as directory:
        root = Path(directory)
        seed(root)
        for run in range(RUNS + 1):
            files = contents(2 * run + 1)
            backdate(root, files)
            fast_s = flush(root, files, durable=False)
            backdate(root, files)
            durable_s = flush(root, contents(2 * run + 2), durable=True)
            if run:  # the first round warms up
                fast_times.append(fast_s)
                durable_times.append(durable_s)
    fast, durable = series(fast_times), series(durable_times)
    finish(
        f"durable flush of {len(files)} files: {durable.text('ms', 1)} = "
        f"{ratio(durable, fast).text('x', 1)} the non-durable one ({fast.text('ms', 1)}); "
        f"medians (min-max) of {RUNS} alternated rounds"
    )


if __name__ == "__main__":
    main()
