"""Files generated from the code (not a script itself): written, or checked as up to date.

The references under ``docs/`` that are generated (the hook reference, the serve
protocol) are written by their scripts and checked by the test suite and
``scripts/test.sh`` with ``--check``, so that the documents cannot drift from the code.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def write_or_check(document: Path, render: Callable[[], str], script: str, about: str) -> int:
    """``script``'s main: write ``document`` from ``render()``, or with ``--check`` exit 1
    when it differs; ``about`` is the script's description."""
    parser = argparse.ArgumentParser(description=about)
    parser.add_argument("--check", action="store_true", help="fail if the file is stale")
    args = parser.parse_args()
    text = render()
    if args.check:
        if not document.exists() or document.read_text(encoding="utf-8") != text:
            print(f"{document} is out of date: run python scripts/{script}", file=sys.stderr)
            return 1
        return 0
    document.write_text(text, encoding="utf-8")
    return 0
