"""Processes seen from outside: by a marker in their command line, by PID or process
group, until they end. A zombie counts as ended: it runs nothing, and whoever reaps
orphans here (PID 1 of a container may never do so) is not the test's business."""

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


def _stat(pid: int) -> tuple[str, int] | None:
    """``(state, process group)`` of ``pid``, or ``None`` when there is no such process."""
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return None
    # pid (comm) state ppid pgrp …: the command name may hold spaces and parentheses.
    state, _, group = stat[stat.rindex(")") + 2 :].split()[:3]
    return state, int(group)


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    found = _stat(pid)
    return found is not None and found[0] != "Z"


def group_members(group: int) -> list[int]:
    """The running (not zombie) processes of process group ``group``."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            found = _stat(int(entry.name))
            if found is not None and found[0] != "Z" and found[1] == group:
                members.append(int(entry.name))
    return members


def wait_for(condition: Callable[[], object], what: str, limit: float = 20.0) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` after ``limit`` seconds (a
    bound for a hang, not a timing check)."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"still waiting for {what}")
        time.sleep(0.05)
