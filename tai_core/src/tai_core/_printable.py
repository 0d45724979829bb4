"""Text from outside tai (a model's words, a path, a database a model's command could
write) as tai shows it on a terminal: printable as it is, else escaped as Python writes it,
so that no control character — an escape sequence that moves the cursor, rewrites the
title or the clipboard — reaches the terminal from tai's own lines."""

from __future__ import annotations

from collections.abc import Callable


def printable(text: str) -> str:
    """``text`` unchanged when every character prints; else its escaped form."""
    return text if text.isprintable() else repr(text)[1:-1]


def printable_lines(text: str) -> str:
    """``text`` with its lines and tabs, every other control character escaped: what a
    model or a block wrote never sends an escape sequence to the terminal."""
    if text.replace("\n", "").replace("\t", "").isprintable():
        return text
    return "".join(c if c in "\n\t" or c.isprintable() else printable(c) for c in text)


def _unchanged(text: str) -> str:
    return text


def shown_on(stream: object) -> Callable[[str], str]:
    """What text from outside tai becomes when written to ``stream``: on a terminal
    :func:`printable_lines`; in a file or a pipe itself (``tai next … > answer.md`` keeps
    the reply as it was sent, ``patch`` reads a diff byte for byte)."""
    isatty = getattr(stream, "isatty", None)
    try:
        terminal = bool(isatty is not None and isatty())
    except (OSError, ValueError):  # a closed stream
        terminal = False
    return printable_lines if terminal else _unchanged
