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
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _phases import Phases, average

COLD_RUNS = 5
WARM_RUNS = 5


def main() -> None:
    from tai_blocks.go import _gocmd, _render
    from tai_blocks.go._docsession import processes_started
    from tai_blocks.go._godoc import install
    from tai_blocks.go.provider import PROVIDER
    from tai_core.config import user_cache_dir
    from tai_core.context import ContextRequest
    from tests.realmodules import PINNED, fetch

    gocache = subprocess.run(
        ["go", "env", "GOCACHE"], capture_output=True, text=True, check=True
    ).stdout
    with tempfile.TemporaryDirectory() as temp:
        root = fetch("tools", Path(temp))
        os.environ["GOCACHE"] = gocache.strip()
        os.environ["XDG_CACHE_HOME"] = str(Path(temp, "cache"))
        install(root)
        request = ContextRequest(cwd=root, command="go")
        PROVIDER.collect(request)  # the file system's caches, as on a machine in use
        phases = Phases().install()
        cold, split, helpers = [], [], []
        for _ in range(COLD_RUNS):
            shutil.rmtree(user_cache_dir() / "go-doc", ignore_errors=True)
            _gocmd._memory.clear()
            _render._declarations.cache_clear()  # parsed files are cached by content too
            phases.reset()
            before = processes_started()
            start = time.perf_counter()
            parts = PROVIDER.collect(request)
            cold.append(time.perf_counter() - start)
            helpers.append(processes_started() - before)
            split.append(dict(phases.seconds))
        phases.uninstall()
        warm = []
        for _ in range(WARM_RUNS):
            start = time.perf_counter()
            again = PROVIDER.collect(request)
            warm.append(time.perf_counter() - start)
            assert again == parts
    module, version = PINNED["tools"]
    phases.seconds = average(split)
    print(
        f"go_context_tools: {module} {version}, {len(parts)} parts: cold median "
        f"{statistics.median(cold):.2f} s over {COLD_RUNS} runs (target <= 3 s), warm median "
        f"{statistics.median(warm):.2f} s over {WARM_RUNS} runs, on {os.cpu_count()} CPUs; "
        f"cold: {phases.summary(statistics.mean(cold))}; helper processes per cold run: "
        f"{max(helpers)}"
    )


if __name__ == "__main__":
    main()
