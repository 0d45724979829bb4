"""The end of every benchmark: its one line, and its exit status (not a benchmark itself).

A benchmark exits 0 when its figure meets its target (or it has none), 1 when a target is
missed — the line then ends with what was missed — and with a message (status 1, through
``SystemExit``) when something is broken. ``TARGET`` in each script is the text of the
README's target column, the one place a target is written (``figures.py`` reads it).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import NoReturn


def finish(line: str, checks: Mapping[str, bool] | None = None) -> NoReturn:
    """Print ``line`` with the verdict of ``checks`` (name → met) and exit accordingly."""
    missed = [name for name, met in (checks or {}).items() if not met]
    if checks:
        line += f" — MISSED: {', '.join(missed)}" if missed else " — ok"
    print(line, flush=True)
    sys.exit(1 if missed else 0)
