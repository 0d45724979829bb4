"""The Go context collection timed in new processes, cold and warm (not a benchmark itself).

Run as a script (``python _gocollect.py ROOT``) it is the measured process: it collects
the Go context of ``ROOT`` once with ``_phases`` timers installed and prints, as JSON, the
collection's seconds (imports and interpreter start-up excluded: ``startup.py`` measures
those), a digest of the parts, the phases and the documentation helper processes started.

``measure`` is the benchmark's side. Every run is a new process; the runs alternate with
their baselines (``_timing.alternate``, one warm-up round):

* *cold*: tai's cache directory (``XDG_CACHE_HOME``: its ``go doc`` cache) and Go's build
  cache (``GOCACHE``) are new empty directories — a first collection on a machine where
  neither tai nor this Go toolchain has run. Only the documentation helper binary is kept
  (copied into the new cache's ``bin``): tai builds it once per toolchain, before the
  sandbox starts (``tai_prepare_isolation``), not as part of a collection.
* *tai-cold*: tai's cache empty as above, Go's build cache warm (a benchmark-owned
  ``GOCACHE`` that earlier runs filled) — a first collection on a machine in use.
* *warm*: tai's cache and Go's build cache as the previous run left them, in a new
  process: nothing is remembered in memory, every documentation text comes from disk.
* baselines: ``go list -e -json -deps -test ./...`` (the load's own call) in a new
  process, with an empty ``GOCACHE`` for cold and the warm one for the others — the same
  module loaded without tai.

Every run must give the same parts.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIST = ["go", "list", "-e", "-json", "-deps", "-test", "--", "./..."]


def child(root: Path) -> None:
    sys.path.insert(0, str(HERE))
    from _phases import Phases

    from tai_context_go import PROVIDER
    from tai_core.context import ContextRequest
    from tai_go._docsession import processes_started

    phases = Phases().install()
    start = time.perf_counter()
    parts = PROVIDER.collect(ContextRequest(cwd=root, command="go"))
    seconds = time.perf_counter() - start
    digest = hashlib.sha256("\0".join(p.key + p.text for p in parts).encode()).hexdigest()
    print(json.dumps({"seconds": seconds, "parts": len(parts), "digest": digest,
                      "phases": phases.seconds, "helpers": processes_started()}))  # fmt: skip


def measure(root: Path, base: Path, runs: int) -> tuple[str, int, float]:
    """The figures' text, the number of parts and the cold median in seconds."""
    sys.path.insert(0, str(HERE))
    from _phases import average, summary
    from _procs import environment, run
    from _timing import alternate, ratio

    helper_cache = environment(base / "helper")
    subprocess.run([sys.executable, "-m", "tai_go._godoc", "--install"], cwd=root,
                   env=helper_cache, check=True, capture_output=True)  # fmt: skip
    helper_bin = Path(helper_cache["XDG_CACHE_HOME"], "tai", "bin")
    warm_env = environment(base / "warm", go_cache=True)
    shutil.copytree(helper_bin, Path(warm_env["XDG_CACHE_HOME"], "tai", "bin"))
    seen: dict[str, list[dict]] = {"cold": [], "tai-cold": [], "warm": []}
    counter = iter(range(10_000))

    def fresh(go_cache: bool) -> dict[str, str]:
        env = environment(base / f"run{next(counter)}", go_cache=go_cache)
        shutil.copytree(helper_bin, Path(env["XDG_CACHE_HOME"], "tai", "bin"))
        if not go_cache:
            env["GOCACHE"] = warm_env["GOCACHE"]
        return env

    def collect(name: str, env: dict[str, str]) -> float:
        found = json.loads(run([sys.executable, __file__, str(root)], env, root))
        seen[name].append(found)
        return found["seconds"]

    def go_list(env: dict[str, str]) -> float:
        start = time.perf_counter()
        subprocess.run(LIST, cwd=root, env=env, check=True, capture_output=True)
        return time.perf_counter() - start

    series = alternate(
        {
            "cold": lambda: collect("cold", fresh(go_cache=True)),
            "go list cold": lambda: go_list(fresh(go_cache=True)),
            "tai-cold": lambda: collect("tai-cold", fresh(go_cache=False)),
            "warm": lambda: collect("warm", warm_env),
            "go list warm": lambda: go_list(warm_env),
        },
        runs,
    )
    digests = {found["digest"] for results in seen.values() for found in results}
    if len(digests) != 1:
        raise SystemExit(f"the runs gave {len(digests)} different contexts")
    cold_runs = seen["cold"][1:]  # the warm-up round's excluded
    cold, list_cold, list_warm = series["cold"], series["go list cold"], series["go list warm"]
    line = (
        f"cold {cold.text('s', 2)} = {ratio(cold, list_cold).text('x', 1)} a bare go list with "
        f"an empty Go cache ({list_cold.text('s', 2)}); tai-cold (Go build cache warm) "
        f"{series['tai-cold'].text('s', 2)}, warm {series['warm'].text('s', 2)} = "
        f"{ratio(series['warm'], list_warm).text('x', 1)} a warm go list "
        f"({list_warm.text('s', 2)}); medians (min-max) of {runs} new processes each, "
        f"alternated; cold: {summary(average([r['phases'] for r in cold_runs]), cold.median)}; "
        f"helper processes per cold run: {max(r['helpers'] for r in cold_runs)}"
    )
    return line, seen["cold"][0]["parts"], cold.median


if __name__ == "__main__":
    child(Path(sys.argv[1]))
