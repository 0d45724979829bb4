"""Initial Python context (``collect``) of a generated 500-module project, cold and warm,
each run in a new process (targets: cold median at most 1.5 s, warm at most 0.3 s).

The project (``_pyproject.generate``) is written to a temporary directory. *Cold*: tai's
cache directory is a new empty one (no outline summary cached: every module is parsed);
*warm*: the cache as the previous run left it, in a new process (nothing in memory, every
summary read from disk). The baseline, alternated with both: a new process that reads and
``ast.parse``-es every ``.py`` file of the project (``_pycollect.py --parse``), the least
work an outline read by Python's own parser needs (tai reads modules with the faster
tree-sitter-python, so a cold run may take less). A cold run parses in worker processes
too when the load average leaves a core idle (:mod:`tai_python._cache`): on a busy machine
it measures the parse in one process. Times are the collection's own (start-up excluded).
Every run must give the same parts.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _procs import environment, run
from _pyproject import generate
from _report import finish
from _timing import alternate, ratio

MODULES = 500
RUNS = 5
TARGET = "1.5 s cold, 0.3 s warm"
CHILD = str(Path(__file__).resolve().with_name("_pycollect.py"))


def main() -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = generate(Path(temp, "gen"), MODULES)
        warm_env = environment(Path(temp, "warm"))
        counter = iter(range(10_000))
        seen: dict[str, list[dict]] = {"cold": [], "warm": [], "parse": []}

        def measured(name: str, env: dict[str, str], *flags: str) -> float:
            found = json.loads(run([sys.executable, CHILD, str(root), *flags], env, root))
            seen[name].append(found)
            return found["seconds"]

        series = alternate(
            {
                "cold": lambda: measured("cold", environment(Path(temp, f"run{next(counter)}"))),
                "warm": lambda: measured("warm", warm_env),
                "parse": lambda: measured("parse", warm_env, "--parse"),
            },
            RUNS,
        )
    digests = {found["digest"] for name in ("cold", "warm") for found in seen[name]}
    if len(digests) != 1:
        raise SystemExit(f"the runs gave {len(digests)} different contexts")
    cold, warm, parse = series["cold"], series["warm"], series["parse"]
    finish(
        f"py_context: {MODULES} modules, {seen['cold'][0]['parts']} parts: cold "
        f"{cold.text('s', 2)} = {ratio(cold, parse).text('x', 1)} reading and parsing every "
        f"file ({parse.text('s', 2)}); warm {warm.text('s', 2)} = "
        f"{ratio(warm, parse).text('x', 1)} that; medians (min-max) of {RUNS} new processes "
        "each, alternated; target cold <= 1.5 s, warm <= 0.3 s",
        {"cold <= 1.5 s": cold.median <= 1.5, "warm <= 0.3 s": warm.median <= 0.3},
    )


if __name__ == "__main__":
    main()
