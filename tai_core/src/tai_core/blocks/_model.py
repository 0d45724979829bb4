"""The values the block parser produces: a complete block, or a parse error.

Both are frozen so they can sit in the immutable generation state and the session tree
without copying.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import attrs

#: Largest size, in UTF-8 bytes, of the content quoted in a parse error.
ERROR_CONTENT_LIMIT = 2000
#: Bytes kept from the start of an over-long content (the rest of the limit is the tail).
ERROR_CONTENT_HEAD = 1333


def _freeze_params(params: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(params))


@attrs.frozen
class Block:
    """One complete heredoc block of a model's reply.

    ``kind`` is ``""`` for a kindless block (no header). ``params`` keeps the header's
    parameters in the order written, a repeated name keeping its last value. ``body`` is the
    text between the opening and the closing line, stripped. ``line`` is the 1-based line of
    the opening ``<<`` line; ``start`` and ``end`` are character offsets in the reply: the
    ``<<`` and the position just past the closing line (its newline included when present).
    """

    kind: str
    delimiter: str
    params: Mapping[str, str] = attrs.field(converter=_freeze_params, hash=False)
    body: str
    line: int
    start: int
    end: int


@attrs.frozen
class BlockParseError:
    """A block the parser could not accept: ``reason`` is ``"unclosed"`` or ``"malformed"``.

    ``kind`` is the header's kind (for a malformed header, the longest prefix made of name
    characters), ``line`` the 1-based line of the opening line, ``content`` the quoted text
    already cut to :data:`ERROR_CONTENT_LIMIT` bytes, ``detail`` what exactly is wrong and
    ``hints`` the near-miss closing lines (``line N: "<line>"``) that may explain an unclosed
    block. ``start`` is the character offset of the ``<<``.
    """

    reason: str
    kind: str
    delimiter: str
    line: int
    start: int
    detail: str
    content: str
    hints: tuple[str, ...] = ()

    def message(self, *, at_line: bool = True) -> str:
        """The text fed back to the model and shown to the user; without ``at line N``
        for a listing that names the line before it (``tai parse``)."""
        where = f" at line {self.line}" if at_line else ""
        head = (
            f"{self.reason} block{where}: kind {self.kind!r}, "
            f"delimiter {self.delimiter!r}: {self.detail}"
        )
        parts = [head]
        if self.hints:
            parts.append("Hints (lines that look like a closing line but carry extra text):")
            parts.extend(f"  {hint}" for hint in self.hints)
        parts.append("Content parsed so far:")
        parts.append(self.content)
        return "\n".join(parts)

    def __str__(self) -> str:
        return self.message()
