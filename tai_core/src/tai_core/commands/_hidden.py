"""Leaving blocks of some kinds out of the reply as it is printed.

In a chat the reply is the answer, and a ``memory`` block in it is bookkeeping between the
model and tai (its result is shown on its own line): printing its heredoc would show the
user the protocol instead of the answer. The reply streams in arbitrary pieces, so the
filter works on lines: a complete line is printed or held back whole, and a partial line is
printed at once unless it could still become a block's first line (it starts with ``<``),
so the text streams as before except at the start of a line that may open a block.
"""

from __future__ import annotations

import re

#: A block's first line: ``<<DELIMITER kind`` with optional parameters.
_HEADER = re.compile(r"^<<(\S+)\s+([A-Za-z0-9_.:-]+)\s*(?:\(.*)?$")


class HiddenBlocks:
    """A streaming filter of reply text that drops the blocks of ``kinds``."""

    def __init__(self, kinds: frozenset[str]) -> None:
        self.kinds = kinds
        self._held = ""
        #: The delimiter of the hidden block being passed over, if any, and how deep
        #: (a line opening a block with the same delimiter nests, as the parser has it).
        self._inside: str | None = None
        self._depth = 0
        #: Whether the current line was already printed in part.
        self._printed_part = False

    def feed(self, text: str) -> str:
        """What to print of the next piece ``text`` of the reply."""
        shown: list[str] = []
        pending = self._held + text
        self._held = ""
        *lines, rest = pending.split("\n")
        for line in lines:
            shown.append(self._line(line))
        if rest:
            if self._inside is None and (self._printed_part or not rest.startswith("<")):
                shown.append(rest)  # not a block's first line: print it as it comes
                self._printed_part = True
            else:
                self._held = rest
        return "".join(shown)

    def flush(self) -> str:
        """What is left to print when the reply has ended."""
        held, self._held = self._held, ""
        return held if self._inside is None else ""

    def _line(self, line: str) -> str:
        """What to print of a complete ``line`` (with its newline)."""
        part, self._printed_part = self._printed_part, False
        header = None if part else _HEADER.match(line)
        if self._inside is not None:
            if header is not None and header.group(1) == self._inside:
                self._depth += 1
            elif line.strip() == self._inside:
                self._depth -= 1
                self._inside = self._inside if self._depth else None
            return ""
        if header is not None and header.group(2) in self.kinds:
            self._inside, self._depth = header.group(1), 1
            return ""
        return line + "\n"
