"""Changes to files as values, and the unified diff people and ``patch`` read.

A :class:`Change` is a path with its old and new text (``None`` for absent). The diff is
the ordinary unified format with ``a/`` and ``b/`` prefixes and ``/dev/null`` for created
and deleted files, so ``git apply`` and ``patch -p1`` accept the plain rendering; colours
are added only on request (a terminal), never to piped output, and a coloured diff shows
the files' control characters escaped: text a model wrote must not drive the terminal.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

import attrs

from tai_core._printable import printable_lines

if TYPE_CHECKING:
    from tai_core.store._store import FileStore

#: Lines of context around each hunk.
CONTEXT = 3

_BOLD, _RED, _GREEN, _CYAN, _RESET = "\x1b[1m", "\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[0m"
_NO_NEWLINE = "\\ No newline at end of file"


@attrs.frozen
class Change:
    """One file's change: ``old`` and ``new`` text, ``None`` when the file is absent."""

    path: str
    old: str | None
    new: str | None

    @property
    def status(self) -> str:
        """``"created"``, ``"deleted"`` or ``"modified"``."""
        if self.old is None:
            return "created"
        if self.new is None:
            return "deleted"
        return "modified"


def _lines(text: str | None) -> list[str]:
    """The lines of ``text`` with their ends; a last line without one is marked as diff does."""
    if not text:
        return []
    lines = text.splitlines(keepends=True)
    if not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n" + _NO_NEWLINE + "\n"
    return lines


def _paint(line: str, color: bool) -> str:
    if not color:
        return line
    line = printable_lines(line)
    if line.startswith(("---", "+++")):
        code = _BOLD
    elif line.startswith("@@"):
        code = _CYAN
    elif line.startswith("-"):
        code = _RED
    elif line.startswith("+"):
        code = _GREEN
    else:
        return line
    body = line.rstrip("\n")
    return f"{code}{body}{_RESET}" + line[len(body) :]


def render_diff(changes: tuple[Change, ...] | list[Change], color: bool) -> str:
    """The unified diff of ``changes`` (empty text when there are none).

    :param color: add ANSI colours (deleted lines red, added green, hunk headers cyan, file
        headers bold) and escape the files' own control characters; pass
        ``sys.stdout.isatty()``.
    """
    out: list[str] = []
    for change in changes:
        old_name = "/dev/null" if change.old is None else f"a/{change.path}"
        new_name = "/dev/null" if change.new is None else f"b/{change.path}"
        lines = list(
            difflib.unified_diff(
                _lines(change.old), _lines(change.new), old_name, new_name, n=CONTEXT
            )
        )
        if not lines and change.old == change.new:
            continue
        # File headers without difflib's empty dates; an empty file created or deleted
        # has headers only.
        lines[:2] = [f"--- {old_name}\n", f"+++ {new_name}\n"]
        out.extend(_paint(line, color) for line in lines)
    return "".join(out)


def pending_diff(store: FileStore, color: bool = False) -> str:
    """The unified diff of ``store``'s finished pending edits against the disk
    (``-no-apply``)."""
    return render_diff(store.finished().pending(), color)
