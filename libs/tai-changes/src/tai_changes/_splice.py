"""Splicing source by whole lines, as bytes: what Go and Python edits by declaration share.

The operations cut and insert whole lines at the byte offsets the parsers give, and keep
blank lines tidy at the joints: ``blank`` is how many blank lines separate declarations
(one in Go and inside a Python class, two between Python's top-level definitions), and a
cut keeps the longer of the two runs of blank lines it joins. Nothing is re-indented here:
Go's text inside a raw string must keep its bytes (goimports indents the rest when the
round is finished), and a Python body is indented to its place before it is spliced
(:mod:`tai_changes._py_body`).
"""

from __future__ import annotations


def encode(text: str) -> bytes:
    """The bytes of a stored text (UTF-8, ``surrogateescape``)."""
    return text.encode("utf-8", "surrogateescape")


def decode(data: bytes) -> str:
    """The stored text of bytes (UTF-8, ``surrogateescape``)."""
    return data.decode("utf-8", "surrogateescape")


def cut(data: bytes, start: int, end: int) -> bytes:
    """``data`` without the whole lines ``[start, end)``; the joint keeps the longer of the
    runs of blank lines before and after the cut (none at the start or end of the file)."""
    before, after = data[:start], data[end:]
    rest = after.lstrip(b"\n")
    if not before.strip(b"\n") or not rest:
        return before.rstrip(b"\n") + (b"\n" if before.strip(b"\n") else b"") + rest
    if not before.endswith(b"\n"):
        return before + after
    kept = max(len(before) - len(before.rstrip(b"\n")) - 1, len(after) - len(rest))
    return before.rstrip(b"\n") + b"\n" * (kept + 1) + rest


def splice(data: bytes, start: int, end: int, text: bytes) -> bytes:
    """``data`` with ``[start, end)`` replaced by ``text``."""
    return data[:start] + text + data[end:]


def append_text(data: bytes, text: bytes, blank: int = 1) -> bytes:
    """``text`` after the end of ``data``, ``blank`` blank lines between."""
    if not data.strip():
        return text + b"\n"
    return data.rstrip() + b"\n" * (blank + 1) + text + b"\n"


def insert_after(data: bytes, end: int, text: bytes, blank: int = 1) -> tuple[bytes, int]:
    """``text`` inserted after offset ``end`` (a line's end) with ``blank`` blank lines
    around it (more after it when more were there); the result and where ``text`` starts
    in it."""
    head, rest = data[:end], data[end:]
    tail = rest.lstrip(b"\n")
    if head:
        head += (b"" if head.endswith(b"\n") else b"\n") + b"\n" * blank
    gap = b"\n" * max(blank, len(rest) - len(tail)) if tail.strip() else b""
    return head + text + b"\n" + gap + tail, len(head)
