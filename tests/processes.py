"""Processes seen from outside: by a marker in their command line, until they end."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest


def alive(marker: str) -> list[int]:
    """The processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def wait_for(condition: Callable[[], object], what: str, limit: float = 20.0) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` after ``limit`` seconds (a
    bound for a hang, not a timing check)."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"still waiting for {what}")
        time.sleep(0.05)
