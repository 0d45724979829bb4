"""Change operations on text files: REPLACE, INSERT_BEFORE, INSERT_AFTER, and BEGIN/END.

The anchor of a text operation is a ``find`` text that must occur exactly once: zero
occurrences means the model's picture of the file is wrong, several mean the edit is
ambiguous, and guessing in either case would put text where nobody asked for it. Bodies
arrive stripped (the block parser strips them), so an inserted body is put on lines of its
own: a newline is added between it and the anchor unless one is already there.

Bodies keep their bytes, ``\r`` included. The parser's strip takes the body's last line
ending with it, so the one put back is the body's own: ``\r\n`` when its lines end so
(:func:`line_end`), and a WRITE of a body written with ``\r\n`` writes ``\r\n``
throughout. A one-line body carries no line ending to go by and gets ``\n``.
"""

from __future__ import annotations

import difflib

#: Files longer than this (in lines) get no "closest line" hint when ``find`` is missing.
HINT_LINES = 5000


class TextEditError(Exception):
    """A text operation that cannot be carried out."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def line_end(body: str) -> str:
    """The line ending ``body`` uses: ``\r\n`` when its lines end so, else ``\n``."""
    return "\r\n" if "\r\n" in body else "\n"


def _closest_line(text: str, find: str) -> str:
    lines = text.splitlines()
    first = next((line for line in find.splitlines() if line.strip()), "")
    if not first or len(lines) > HINT_LINES:
        return ""
    close = difflib.get_close_matches(first, lines, n=1, cutoff=0.6)
    if not close:
        return ""
    return f"; closest line {lines.index(close[0]) + 1}: {close[0].strip()[:80]!r}"


def edit_text(text: str | None, op: str, find: str, body: str) -> str:
    """``text`` after REPLACE / INSERT_BEFORE / INSERT_AFTER of ``body`` at ``find``."""
    if text is None:
        raise TextEditError("the file does not exist (create it with WRITE)")
    count = text.count(find)
    if count == 0:
        raise TextEditError(f"find text not found{_closest_line(text, find)}")
    if count > 1:
        raise TextEditError(
            f"find text appears {count} times; it must occur exactly once: "
            "include more of the surrounding text, or use WRITE"
        )
    at = text.index(find)
    if op == "REPLACE":
        new = body
    elif op == "INSERT_BEFORE":
        new = body + ("" if body.endswith("\n") else "\n") + find
    else:
        new = find + ("" if body.startswith("\n") else "\n") + body
    return text[:at] + new + text[at + len(find) :]


def edit_edge(text: str | None, target: str, body: str) -> str:
    """``text`` with ``body`` added at its start (``BEGIN``) or end (``END``); a missing
    file is created with the body."""
    body = body if body.endswith("\n") else body + line_end(body)
    if not text:
        return body
    if target == "BEGIN":
        return body + text
    return text + ("" if text.endswith("\n") else "\n") + body
