"""Initial Go context (``collect``) of a generated 200-package module, cold and warm, each
run in a new process (target: cold median at most 1.5 s).

The module (``_gomodule.generate``) is written to a temporary directory. What cold,
tai-cold and warm mean, and the baseline — a bare ``go list`` of the same module in the
same state of Go's build cache, alternated with the collections — are in
``_gocollect.py``: in short, cold empties tai's cache and ``GOCACHE`` (the ``go doc``
helper binary is kept, built once per toolchain before the clock starts), tai-cold keeps
Go's build cache warm, warm keeps both but not the process. The target is judged on cold.
The line ends with where a cold run spends its time (``_phases.py``) and how many helper
processes a cold run started.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gocollect import measure
from _gomodule import generate
from _report import finish

PACKAGES = 200
RUNS = 5
TARGET = "1.5 s cold"


def main() -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = generate(Path(temp, "gen"), PACKAGES)
        line, parts, cold = measure(root, Path(temp, "runs"), RUNS)
    finish(f"go_context: {PACKAGES} packages, {parts} parts: {line}; target cold <= 1.5 s",
           {"cold <= 1.5 s": cold <= 1.5})  # fmt: skip


if __name__ == "__main__":
    main()
