"""Initial Go context (``collect``) of a generated 200-package module (target: median at
most 1.5 s).

The module is written to a temporary directory and the ``go`` build cache is warmed once
(``go list`` and ``go vet`` compile what later runs read). Then ``collect`` runs first with
an empty ``go doc`` cache (tai's, in a temporary ``XDG_CACHE_HOME``: 200 ``go doc``
subprocesses in parallel threads) and again several times on the unchanged tree, the
repeated load of a goal loop (each ``go doc`` output found by its package's content).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gomodule import generate

PACKAGES = 200
RUNS = 7


def main() -> None:
    from tai_blocks.go._collect import workers
    from tai_blocks.go.provider import PROVIDER
    from tai_core.context import ContextRequest

    with tempfile.TemporaryDirectory() as temp:
        os.environ["XDG_CACHE_HOME"] = str(Path(temp, "cache"))
        root = generate(Path(temp, "gen"), PACKAGES)
        subprocess.run(["go", "vet", "./..."], cwd=root, check=True, capture_output=True)
        request = ContextRequest(cwd=root, command="go")
        start = time.perf_counter()
        parts = PROVIDER.collect(request)
        cold = time.perf_counter() - start
        times = []
        for _ in range(RUNS):
            start = time.perf_counter()
            again = PROVIDER.collect(request)
            times.append(time.perf_counter() - start)
            assert again == parts
    print(
        f"go_context: {PACKAGES} packages, {len(parts)} parts: "
        f"median {statistics.median(times):.2f} s "
        f"over {RUNS} runs (go doc outputs cached by content); first run {cold:.2f} s "
        f"({PACKAGES} go doc in {workers()} threads on {os.cpu_count()} CPUs); target <= 1.5 s"
    )


if __name__ == "__main__":
    main()
