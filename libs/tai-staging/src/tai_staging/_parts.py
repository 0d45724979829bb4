"""The pieces every staged context is made of: the order of parts inside a tier, the
import distance and git history that order them, the marked blocks that hold them, and
the working-directory hint.

The key (:func:`sort_key`) orders parts inside a tier: the project's files by ascending
git change count of their unit (files that change often come late, so fewer parts follow
them), then other files before code, larger import distance first, deeper unit paths
(``/``-separated) first, the unit path and the file path. Every component is fixed-width
or last, so comparing the strings compares the tuples.
"""

from __future__ import annotations

import subprocess
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from tai_core.context import TIER_HINTS, ContextPart

#: The distance of a unit not reached from the focus.
UNREACHED = 1 << 30


class Importer(Protocol):
    """A unit that imports others (by path)."""

    @property
    def imports(self) -> Sequence[str]: ...


def sort_key(changes: int, is_code: bool, distance: int, unit: str, file: str) -> str:
    """The ordering key of a part inside its tier (see the module docstring)."""
    depth = unit.count("/")
    return (
        f"{changes:06d} {int(is_code)} {UNREACHED - min(distance, UNREACHED):010d} "
        f"{999 - min(depth, 999):03d} {unit}\0{file}"
    )


def distances(units: Mapping[str, Importer], start: Sequence[str]) -> dict[str, int]:
    """Import distance of each unit reachable from ``start`` (breadth first)."""
    found = dict.fromkeys(start, 0)
    queue = deque(start)
    while queue:
        current = queue.popleft()
        for imported in units[current].imports if current in units else ():
            if imported not in found:
                found[imported] = found[current] + 1
                queue.append(imported)
    return found


def git_counts(cwd: Path) -> dict[str, int]:
    """How often each file (absolute path) changed in the last 50 commits; empty when
    ``cwd`` is not in a git work tree."""
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], cwd=cwd, capture_output=True,
            text=True, check=True,
        ).stdout.strip()  # fmt: skip
        log = subprocess.run(
            ["git", "log", "--max-count=50", "--name-only", "--pretty=format:"],
            cwd=cwd, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return {}
    counts: dict[str, int] = {}
    for line in log.splitlines():
        if line.strip():
            path = str(Path(top, line.strip()))
            counts[path] = counts.get(path, 0) + 1
    return counts


def _mark(read_only: bool) -> str:
    return " (read-only)" if read_only else ""


def file_block(role: str, display: str, data: bytes, read_only: bool) -> str:
    """A whole file: ``role`` is ``focus file`` or ``context file``."""
    text = data.decode("utf-8", "replace")
    return (
        f"``` begin of {role} {display}{_mark(read_only)}\n{text}\n``` end of {role} {display}\n\n"
    )


def unit_block(role: str, path: str, doc: str, read_only: bool = False) -> str:
    """A unit's text: ``role`` is ``context package``, ``focus module``…"""
    if doc and not doc.endswith("\n"):
        doc += "\n"
    return f"``` begin of {role} {path}{_mark(read_only)}\n{doc}``` end of {role} {path}\n\n"


def hint_part(cwd: Path, language: str) -> ContextPart:
    """Where the run works, and how file paths are written (``language`` keys the part:
    ``go``, ``py``)."""
    text = (
        f"Working directory: {cwd}\nWrite file paths relative to this directory (or "
        "absolute paths under it) in change blocks and every other block.\n"
    )
    return ContextPart(TIER_HINTS, f"{language} working directory", text, str(cwd))
