"""Initial Go context (``collect``) of golang.org/x/tools v0.39.0 (``./...``, some 220
focus packages), cold and warm, each run in a new process (target: cold median at most
3 s).

The module is the suite's pinned copy (``tests.realmodules.fetch``: through the module
proxy, dependencies downloaded), in a temporary directory. Cold, tai-cold, warm and the
baseline (a bare ``go list`` alternated with the collections) are as in ``go_context.py``
(see ``_gocollect.py``); the target is judged on cold.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _gocollect import measure
from _report import finish

RUNS = 5
TARGET = "3 s cold"


def main() -> None:
    from tests.realmodules import PINNED, fetch

    with tempfile.TemporaryDirectory() as temp:
        root = fetch("tools", Path(temp))
        line, parts, cold = measure(root, Path(temp, "runs"), RUNS)
    module, version = PINNED["tools"]
    finish(f"go_context_tools: {module} {version}, {parts} parts: {line}; target cold <= 3 s",
           {"cold <= 3 s": cold <= 3})  # fmt: skip


if __name__ == "__main__":
    main()
