"""Files named with ``-file``, rendered in full for the prompt.

Patterns are globs relative to the working directory (``**`` crosses directories) or plain
paths; matches are sorted and deduplicated. Text files are included whole between begin and
end markers; a file that is not UTF-8 text is named with a note instead, so the model knows
it exists. A pattern that matches nothing is an error: a silently empty context is worse.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click


def _matches(pattern: str, cwd: Path) -> list[Path]:
    path = Path(pattern).expanduser()
    if not any(char in pattern for char in "*?["):
        full = path if path.is_absolute() else cwd / path
        return [full] if full.is_file() else []
    base = Path(path.anchor) if path.is_absolute() else cwd
    relative = str(path.relative_to(path.anchor)) if path.is_absolute() else pattern
    return [match for match in base.glob(relative) if match.is_file()]


def render_files(patterns: Sequence[str], cwd: Path) -> str:
    """The context part for ``patterns`` (empty without patterns)."""
    files: list[Path] = []
    for pattern in patterns:
        found = _matches(pattern, cwd)
        if not found:
            raise click.UsageError(f"-file {pattern}: no file matches")
        files.extend(found)
    parts = []
    for path in sorted(set(files)):
        shown = path.relative_to(cwd) if path.is_relative_to(cwd) else path
        try:
            content = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            parts.append(f"``` file {shown}: not UTF-8 text, content omitted\n")
            continue
        parts.append(f"``` begin of file {shown}\n{content.rstrip()}\n``` end of file {shown}\n")
    return "\n".join(parts)
