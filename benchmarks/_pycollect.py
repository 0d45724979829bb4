"""The Python context collection timed in new processes (not a benchmark itself).

Run as a script (``python _pycollect.py ROOT``) it is the measured process: it collects the
Python context of ``ROOT`` once and prints, as JSON, the collection's seconds (imports and
interpreter start-up excluded: ``startup.py`` measures those), the number of parts and a
digest of them. With ``--parse`` it is the baseline instead: it reads every ``.py`` file
under ``ROOT`` and parses it with :func:`ast.parse` — the least work an outline read by
Python's own parser needs — and prints that time the same way.
"""

from __future__ import annotations

import ast
import hashlib
import json
import sys
import time
from pathlib import Path


def child(root: Path) -> None:
    from tai_context_py import PROVIDER
    from tai_core.context import ContextRequest

    start = time.perf_counter()
    parts = PROVIDER.collect(ContextRequest(cwd=root, command="py"))
    seconds = time.perf_counter() - start
    digest = hashlib.sha256("\0".join(p.key + p.text for p in parts).encode()).hexdigest()
    print(json.dumps({"seconds": seconds, "parts": len(parts), "digest": digest}))


def parse_all(root: Path) -> None:
    start = time.perf_counter()
    for path in sorted(root.rglob("*.py")):
        ast.parse(path.read_bytes())
    print(json.dumps({"seconds": time.perf_counter() - start, "parts": 0, "digest": ""}))


if __name__ == "__main__":
    (parse_all if "--parse" in sys.argv else child)(Path(sys.argv[1]))
