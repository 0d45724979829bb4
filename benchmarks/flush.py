"""The cost of a crash-atomic flush: 200 changed files against writing them naively.

Naive means what an editor without a journal does: open, write, close, file after file.
The flush adds the conflict check, the journal (fsynced), staging beside the targets, the
commit and the renames (see ``tai_core.store._flush``). Target: at most 3x the naive time.
The files are of mixed sizes (1 to 40 KB) in 10 directories and were last changed more than
two seconds before tai read them, as files usually are. Also reported: ``durable=True``,
which fsyncs every file for power-loss safety. Medians of 15 runs; prints one line; run
with ``uv run python benchmarks/flush.py``.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from tai_core.store import FileStore

FILES = 200
RUNS = 15


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
        for run in range(RUNS):
            files = contents(3 * run + 1)
            backdate(root, files)
            naive_times.append(naive(root, files))
            backdate(root, files)
            flush_times.append(flush(root, contents(3 * run + 2), durable=False))
            backdate(root, files)
            durable_times.append(flush(root, contents(3 * run + 3), durable=True))
    naive_ms = statistics.median(naive_times) * 1000
    flush_ms = statistics.median(flush_times) * 1000
    durable_ms = statistics.median(durable_times) * 1000
    ratio = flush_ms / naive_ms
    print(
        f"flush of {FILES} changed files: {flush_ms:.1f} ms vs naive writes {naive_ms:.1f} ms "
        f"= {ratio:.1f}x (target <= 3x) — {'ok' if ratio <= 3 else 'OVER TARGET'}; "
        f"durable (fsync per file) {durable_ms:.1f} ms"
    )


if __name__ == "__main__":
    main()
