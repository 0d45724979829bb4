"""Text from outside tai (a model's words, a path, a database a model's command could
write) as tai shows it on a terminal: printable as it is, else escaped as Python writes it,
so that no control character — an escape sequence that moves the cursor, rewrites the
title or the clipboard — reaches the terminal from tai's own lines."""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` unchanged when every character prints; else its escaped form."""
    return text if text.isprintable() else repr(text)[1:-1]
