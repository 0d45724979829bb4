"""The cost of a crash-atomic flush: 200 changed files against writing them naively.

Naive means what an editor without a journal does: open, write, close, file after file.
The flush adds the conflict check, the journal (fsynced), staging beside the targets, the
commit and the renames (see ``tai_core.store._flush``). Target: at most 3x the naive time.
The files are of mixed sizes (1 to 40 KB) in 10 directories and were last changed more than
two seconds before tai read them, as files usually are. Also reported: ``durable=True``,
which fsyncs every file for power-loss safety. The three alternate in 15 rounds after a
warm-up round; medians (min-max), the ratio round by round; prints one line; run with
``uv run python benchmarks/flush.py``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import finish
from _timing import ratio, series

from tai_core.store import FileStore

FILES = 200
RUNS = 15
TARGET = "3x"


def contents(generation: int) -> dict[str, bytes]:
    return {
        f"dir{index % 10}/file{index}.go": (
            f"// generation {generation}\n".encode() + b"x" * (1024 * (1 + index % 40))
        )
        for index in range(FILES)
    }


def seed(root: Path) -> None:
    """Write the first generation of the files under ``root``."""
    for name, data in contents(0).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


def backdate(root: Path, files: dict[str, bytes]) -> None:
    """Make the files look last changed a minute ago."""
    past = time.time_ns() - 60_000_000_000
    for name in files:
        os.utime(root / name, ns=(past, past))


def naive(root: Path, files: dict[str, bytes]) -> float:
    start = time.perf_counter()
    for name, data in files.items():
        with (root / name).open("wb") as file:
            file.write(data)
    return time.perf_counter() - start


def flush(root: Path, files: dict[str, bytes], durable: bool) -> float:
    store = FileStore.open(root)
    for name, data in files.items():
        store = store.write(name, data.decode())
    start = time.perf_counter()
    store.flush(durable=durable)
    return time.perf_counter() - start


def main() -> None:
    naive_times, flush_times, durable_times = [], [], []
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        seed(root)
        for run in range(RUNS + 1):
            files = contents(3 * run + 1)
            backdate(root, files)
            naive_s = naive(root, files)
            backdate(root, files)
            flush_s = flush(root, contents(3 * run + 2), durable=False)
            backdate(root, files)
            durable_s = flush(root, contents(3 * run + 3), durable=True)
            if run:  # the first round warms up
                naive_times.append(naive_s)
                flush_times.append(flush_s)
                durable_times.append(durable_s)
    plain, flushed, durable = series(naive_times), series(flush_times), series(durable_times)
    times = ratio(flushed, plain)
    finish(
        f"flush of {FILES} changed files: {flushed.text('ms', 1)} = {times.text('x', 1)} naive "
        f"writes ({plain.text('ms', 1)}); durable (fsync per file) {durable.text('ms', 1)}; "
        f"medians (min-max) of {RUNS} alternated rounds; target <= 3x",
        {"<= 3x": times.median <= 3},
    )


if __name__ == "__main__":
    main()
