"""Initial Go context (``collect``) of a generated 200-package module: cold (tai's
``go doc`` cache empty; target: median at most 1.5 s) and warm (every text found by its
package's content).

The module is written to a temporary directory and the ``go`` build cache is warmed once
(``go vet`` compiles what later runs read); the documentation helper is built before the
clock starts, as tai builds it before the sandbox starts (``tai_prepare_isolation``). A
cold run empties tai's ``go doc`` cache (in a temporary ``XDG_CACHE_HOME``; the Go build
cache stays the user's) and the process's memory of it: every package's documentation
goes to one helper process. A warm run is the repeated load of a goal loop. The line
ends with where a cold run spends its time (``_phases.py``) and how many helper
processes a cold run started.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gomodule import generate
from _phases import cold_and_warm, user_go_cache

PACKAGES = 200


def main() -> None:
    gocache = user_go_cache()
    with tempfile.TemporaryDirectory() as temp:
        os.environ["GOCACHE"] = gocache
        os.environ["XDG_CACHE_HOME"] = str(Path(temp, "cache"))
        root = generate(Path(temp, "gen"), PACKAGES)
        subprocess.run(["go", "vet", "./..."], cwd=root, check=True, capture_output=True)
        line, parts = cold_and_warm(root, cold_runs=5, warm_runs=7)
    print(f"go_context: {PACKAGES} packages, {parts} parts: {line}; target cold <= 1.5 s")


if __name__ == "__main__":
    main()
