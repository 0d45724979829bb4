"""Text from outside tai (a model's words, a path, a database a model's command could
write) as tai shows it on a terminal: printable as it is, else escaped as Python writes it,
so that no control character — an escape sequence that moves the cursor, rewrites the
title or the clipboard — reaches the terminal from tai's own lines."""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` unchanged when every character prints; else its escaped form."""
    return text if text.isprintable() else repr(text)[1:-1]


def printable_lines(text: str) -> str:
    """``text`` with its lines and tabs, every other control character escaped: what a
    model or a block wrote never sends an escape sequence to the terminal."""
    if text.replace("\n", "").replace("\t", "").isprintable():
        return text
    return "".join(c if c in "\n\t" or c.isprintable() else printable(c) for c in text)
