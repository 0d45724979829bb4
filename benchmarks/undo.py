"""The time of ``tai undo`` after a round that changed 10 files of a 10,000-file tree.

Measured as the user meets it: the real ``tai`` script in a new process (start-up, plugin
loading, reading the checkpoint log, a scan of the tree, the restore of the 10 files).
Each round records a checkpoint, changes 10 files, records the run's end, then times
``tai undo`` and, alternated with it, the baselines ``tai --version`` with the launch cache
off (the start-up every command pays: plugins loaded) and the bare interpreter (``python -c
pass``). Target: <= 300 ms. The tree is ``_tree.make_tree``; medians (min-max) of 9
rounds after a warm-up round.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _procs import BARE, TAI, environment, run
from _report import finish
from _timing import alternate, ratio, timed
from _tree import FILES, change, make_tree

RUNS = 9
TARGET = "300 ms"
LIMIT = 10 * 1024 * 1024


def main() -> None:
    from tai_checkpoints._store import CheckpointStore

    with tempfile.TemporaryDirectory() as directory:
        root = make_tree(Path(directory))
        env = environment(Path(directory) / "home")
        env["TAI_DATA_DIR"] = str(Path(directory) / "data")  # the tree's checkpoints
        full = {**env, "TAI_NO_LAUNCH_CACHE": "1"}
        store = CheckpointStore(root)
        store.record("warm", 1, "write", LIMIT)
        rounds = iter(range(RUNS + 1))

        def undo() -> float:
            number = next(rounds)
            store.record(f"bench{number}", 1, "write", LIMIT)
            change(root, 10, number)
            store.record(f"bench{number}", 1, "end", LIMIT)
            return timed(lambda: run([TAI, "undo"], env, root))

        times = alternate(
            {
                "undo": undo,
                "version": lambda: timed(lambda: run([TAI, "--version"], full, root)),
                "bare": lambda: timed(lambda: run(BARE, env, root)),
            },
            RUNS,
        )
    undo_s, version, bare = times["undo"], times["version"], times["bare"]
    finish(
        f"tai undo of a 10-file round in {FILES} files: {undo_s.text()} = "
        f"{ratio(undo_s, version).text('x', 1)} tai --version ({version.text()}; bare "
        f"interpreter {bare.text()}); medians (min-max) of {RUNS} alternated rounds; "
        "target <= 300 ms",
        {"<= 300 ms": undo_s.median <= 0.3},
    )


if __name__ == "__main__":
    main()
