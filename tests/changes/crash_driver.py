"""Kill flushing processes, recover, check: the driver of ``test_crash.py``.

Run as ``python crash_driver.py ROOT MODE SEED COUNT``; prints one JSON report. It forks a
child per kill (so each kill hits a fresh, real process that has everything imported), lets
it flush generation after generation of ``FILES`` files into ROOT, kills it with SIGKILL,
runs :func:`tai_core.store.recover` as the next start of tai would, and checks that every
file holds entirely one generation's content and that all files agree.

Modes:

``steps``
    The child kills itself right after step N of the flush protocol, for every N until a
    flush completes: before the commit the old generation must survive, from the commit on
    the new one.
``random``
    The child flushes in a loop, telling the parent (one byte on a pipe) each time it is
    about to flush; the parent kills it a random time (seeded) after that, drawn from one
    and a half times the duration of a flush, COUNT times — so the kills fall all over
    the protocol and after it, whatever the speed of the machine.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tai_core.store import JOURNAL_DIR, FileStore, recover

FILES = 20
EXTRA = "extra/only-in-even-generations.txt"


def content(generation: int, index: int) -> str:
    """File ``index`` of ``generation``: a header and a body of a size that varies by file
    (up to ~200 KB), so a torn file could never pass for a whole one."""
    lines = 10 + (index * 997) % 5000 if index % 5 else 10
    return f"generation {generation} file {index}\n" + f"{generation}:{index}\n" * lines


def write_generation(store: FileStore, generation: int) -> FileStore:
    for index in range(FILES):
        store = store.write(f"d{index % 3}/f{index}.txt", content(generation, index))
    return store.write(EXTRA, "even\n") if generation % 2 == 0 else store.delete(EXTRA)


def current_generation(root: Path) -> int:
    """The generation on disk, after checking that the disk holds exactly one."""
    found = set()
    for index in range(FILES):
        path = root / f"d{index % 3}/f{index}.txt"
        text = path.read_text()
        generation = int(text.split()[1])
        if text != content(generation, index):
            raise AssertionError(f"{path}: torn or mixed content")
        found.add(generation)
    if len(found) != 1:
        raise AssertionError(f"files of one flush disagree: generations {sorted(found)}")
    (generation,) = found
    if (root / EXTRA).exists() != (generation % 2 == 0):
        raise AssertionError(f"{EXTRA} does not match generation {generation}")
    leftovers = [p.name for p in root.rglob("*.tai-tmp")]
    if leftovers or (root / JOURNAL_DIR).exists():
        raise AssertionError(f"left behind: {leftovers or JOURNAL_DIR}")
    return generation


def child(root: Path, on_step: Callable[[str], None] | None, signal_fd: int | None) -> None:
    """Flush the next generation; with ``signal_fd``, again and again, writing a byte to it
    before each flush. Never returns."""
    try:
        store = FileStore.open(root)
        generation = current_generation(root)
        while True:
            generation += 1
            store = write_generation(store, generation)
            if signal_fd is None:
                store.flush(on_step=on_step)
                os._exit(0)
            os.write(signal_fd, b".")
            store = store.flush()
    except BaseException as error:  # noqa: BLE001 - report anything, then die
        sys.stderr.write(f"child failed: {error!r}\n")
        os._exit(3)


def kill_and_recover(root: Path, pid: int) -> str:
    """Wait for ``pid``, recover ``root``; what recovery did (or ``finished``)."""
    _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status):
        if os.WEXITSTATUS(status) != 0:
            raise AssertionError(f"child exited with {os.WEXITSTATUS(status)}")
        return "finished"
    if os.WTERMSIG(status) != signal.SIGKILL:
        raise AssertionError(f"child died of signal {os.WTERMSIG(status)}")
    report = recover(root)
    if report.problems:
        raise AssertionError(f"recovery problems: {report.problems}")
    if report.completed:
        return "completed"
    return "rolled back" if report.rolled_back else "clean"


def run_steps(root: Path) -> dict[str, object]:
    outcomes: list[tuple[str, str, str]] = []
    step = 0
    while True:
        step += 1
        before = current_generation(root)
        names: list[str] = []

        def on_step(name: str, stop_at: int = step, seen: list[str] = names) -> None:
            seen.append(name)
            if len(seen) == stop_at:
                os.kill(os.getpid(), signal.SIGKILL)

        pid = os.fork()
        if pid == 0:
            child(root, on_step, None)
        outcome = kill_and_recover(root, pid)
        after = current_generation(root)
        if outcome == "finished":
            break
        survivor = "new" if after == before + 1 else "old" if after == before else "?"
        outcomes.append((str(step), outcome, survivor))
    return {"steps": outcomes}


def run_random(root: Path, seed: int, count: int, flush_seconds: float) -> dict[str, object]:
    rng = random.Random(seed)
    tally: dict[str, int] = {}
    last = current_generation(root)
    started = time.monotonic()
    for _ in range(count):
        ready, signal_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(ready)
            child(root, None, signal_fd)
        os.close(signal_fd)
        os.read(ready, 1)
        time.sleep(rng.uniform(0.0, 1.5 * flush_seconds))
        os.kill(pid, signal.SIGKILL)
        os.close(ready)
        outcome = kill_and_recover(root, pid)
        tally[outcome] = tally.get(outcome, 0) + 1
        generation = current_generation(root)
        if generation < last:
            raise AssertionError(f"generation went back from {last} to {generation}")
        last = generation
    return {"kills": count, "outcomes": tally, "generation": last,
            "seconds": round(time.monotonic() - started, 2)}  # fmt: skip


def main() -> None:
    root, mode, seed, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    store = write_generation(FileStore.open(root), 0)
    start = time.perf_counter()
    store.flush()
    flush_seconds = time.perf_counter() - start
    report = run_steps(root) if mode == "steps" else run_random(root, seed, count, flush_seconds)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
