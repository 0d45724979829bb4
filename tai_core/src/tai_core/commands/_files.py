"""Files named with ``-file``, rendered in full for the prompt.

Patterns are globs relative to the working directory (``**`` crosses directories) or plain
paths; matches are sorted and deduplicated. Text files are included whole between begin and
end markers; a file that is not UTF-8 text is named with a note instead, so the model knows
it exists. A pattern that matches nothing is an error: a silently empty context is worse.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import click

from tai_core.context import TIER_FILES, ContextPart


def _matches(pattern: str, cwd: Path) -> list[Path]:
    path = Path(pattern).expanduser()
    if not any(char in pattern for char in "*?["):
        full = path if path.is_absolute() else cwd / path
        return [full] if full.is_file() else []
    base = Path(path.anchor) if path.is_absolute() else cwd
    relative = str(path.relative_to(path.anchor)) if path.is_absolute() else pattern
    return [match for match in base.glob(relative) if match.is_file()]


def file_parts(
    patterns: Sequence[str], cwd: Path, is_writable: Callable[[Path], bool] | None = None
) -> list[ContextPart]:
    """One context part per file of ``patterns`` (none without patterns), last in the
    prompt (``TIER_FILES``), in path order; files the run may not change are marked."""
    files: list[Path] = []
    for pattern in patterns:
        found = _matches(pattern, cwd)
        if not found:
            raise click.UsageError(f"-file {pattern}: no file matches")
        files.extend(found)
    parts = []
    for path in sorted(set(files)):
        shown = str(path.relative_to(cwd) if path.is_relative_to(cwd) else path)
        read_only = is_writable is not None and not is_writable(path)
        marker = f"{shown} (read-only)" if read_only else shown
        try:
            content = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            text = f"``` file {marker}: not UTF-8 text, content omitted"
        else:
            text = f"``` begin of file {marker}\n{content.rstrip()}\n``` end of file {shown}"
        parts.append(ContextPart(TIER_FILES, shown, text, path=shown, read_only=read_only))
    return parts
