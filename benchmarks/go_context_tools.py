"""Initial Go context (``collect``) of golang.org/x/tools v0.39.0 (``./...``, some 220
focus packages): cold (tai's ``go doc`` cache empty; target: median at most 3 s) and warm.

The module is the suite's pinned copy (``tests.realmodules.fetch``: through the module
proxy, dependencies downloaded), in a temporary directory. The documentation helper is
built before the clock starts, as tai builds it before the sandbox starts. A cold run
empties tai's ``go doc`` cache (a temporary ``XDG_CACHE_HOME``; the Go build cache stays
the user's) and the process's memory of it; a warm run is the repeated load of a goal
loop. The line ends with where a cold run spends its time (``_phases.py``) and how many
helper processes a cold run started.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _phases import cold_and_warm, user_go_cache


def main() -> None:
    from tests.realmodules import PINNED, fetch

    gocache = user_go_cache()
    with tempfile.TemporaryDirectory() as temp:
        root = fetch("tools", Path(temp))
        os.environ["GOCACHE"] = gocache
        os.environ["XDG_CACHE_HOME"] = str(Path(temp, "cache"))
        line, parts = cold_and_warm(root, cold_runs=5, warm_runs=5)
    module, version = PINNED["tools"]
    print(f"go_context_tools: {module} {version}, {parts} parts: {line}; target cold <= 3 s")


if __name__ == "__main__":
    main()
