"""Splicing Go source by whole lines, as bytes.

The operations cut and insert whole lines at the byte offsets tree-sitter gives, and keep
blank lines tidy at the joints (at most one between declarations). Nothing is re-indented:
the text inside a raw string must keep its bytes, and goimports indents the rest when the
round is finished.
"""

from __future__ import annotations

from tai_changes._go_syntax import Decl


def encode(text: str) -> bytes:
    """The bytes of a stored text (UTF-8, ``surrogateescape``)."""
    return text.encode("utf-8", "surrogateescape")


def decode(data: bytes) -> str:
    """The stored text of bytes (UTF-8, ``surrogateescape``)."""
    return data.decode("utf-8", "surrogateescape")


def cut(data: bytes, start: int, end: int) -> bytes:
    """``data`` without ``[start, end)``, leaving at most one blank line at the joint."""
    before, after = data[:start], data[end:]
    if not before or before.endswith(b"\n\n"):
        after = after.lstrip(b"\n")
    return before + after


def splice(data: bytes, start: int, end: int, text: bytes) -> bytes:
    """``data`` with ``[start, end)`` replaced by ``text``."""
    return data[:start] + text + data[end:]


def header_end(decls: list[Decl]) -> int:
    """Where declarations may start: after the package clause and the imports."""
    return max((d.end for d in decls if d.kind in ("package", "import")), default=0)


def append_text(data: bytes, text: bytes) -> bytes:
    """``text`` after the end of ``data``, one blank line between."""
    return data.rstrip() + b"\n\n" + text + b"\n"


def insert_after(data: bytes, end: int, text: bytes) -> tuple[bytes, int]:
    """``text`` inserted after offset ``end`` with a blank line around it; the result and
    where ``text`` starts in it."""
    head, tail = data[:end], data[end:].lstrip(b"\n")
    head += b"\n" if head.endswith(b"\n") else b"\n\n"
    return head + text + b"\n" + (b"\n" if tail.strip() else b"") + tail, len(head)
