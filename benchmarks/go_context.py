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
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gomodule import generate
from _phases import Phases, average

PACKAGES = 200
COLD_RUNS = 5
WARM_RUNS = 7


def main() -> None:
    from tai_blocks.go import _gocmd, _render
    from tai_blocks.go._docsession import processes_started
    from tai_blocks.go._godoc import install
    from tai_blocks.go.provider import PROVIDER
    from tai_core.config import user_cache_dir
    from tai_core.context import ContextRequest

    gocache = subprocess.run(
        ["go", "env", "GOCACHE"], capture_output=True, text=True, check=True
    ).stdout
    with tempfile.TemporaryDirectory() as temp:
        os.environ["GOCACHE"] = gocache.strip()
        os.environ["XDG_CACHE_HOME"] = str(Path(temp, "cache"))
        root = generate(Path(temp, "gen"), PACKAGES)
        subprocess.run(["go", "vet", "./..."], cwd=root, check=True, capture_output=True)
        install(root)
        request = ContextRequest(cwd=root, command="go")
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
    phases.seconds = average(split)
    print(
        f"go_context: {PACKAGES} packages, {len(parts)} parts: cold median "
        f"{statistics.median(cold):.2f} s over {COLD_RUNS} runs (target <= 1.5 s), warm "
        f"median {statistics.median(warm):.2f} s over {WARM_RUNS} runs, on {os.cpu_count()} "
        f"CPUs; cold: {phases.summary(statistics.mean(cold))}; helper processes per cold "
        f"run: {max(helpers)}"
    )


if __name__ == "__main__":
    main()
