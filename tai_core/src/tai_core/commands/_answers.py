"""Printing a streamed reply with its answers unwrapped.

In a chat the reply is the answer. A ``response`` block *is* the answer: its body is
printed, the lines that open and close it are not (the terminal UI shows answers the same
way, ``tai_core.tui._state.readable``). Every other block is printed as written: a
``memory`` block above all, which writes what every later chat's prompt carries, and which
nothing else would show the user. The reply streams in arbitrary pieces, so the filter
works on lines: a complete line is printed or held back whole, and a partial line is
printed at once unless it could still become a block's first line (it starts with ``<``)
or the closing line of the answer being unwrapped, so the text streams as before except
at the start of a line that may open or close an answer.
"""

from __future__ import annotations

import re

#: A block's first line: ``<<DELIMITER kind`` with optional parameters.
_HEADER = re.compile(r"^<<(\S+)\s+([A-Za-z0-9_.:-]+)\s*(?:\(.*)?$")


class UnwrappedAnswers:
    """A streaming filter of reply text that prints the bodies of the blocks of ``kinds``
    without their first and closing lines, and everything else as it comes."""

    def __init__(self, kinds: frozenset[str]) -> None:
        self.kinds = kinds
        self._held = ""
        #: The delimiter of the answer being unwrapped, if any, and how deep (a line
        #: opening a block with the same delimiter nests, as the parser has it).
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
            if self._printed_part or not self._may_be_marker(rest):
                shown.append(rest)  # printed as it comes
                self._printed_part = True
            else:
                self._held = rest
        return "".join(shown)

    def flush(self) -> str:
        """What is left to print when the reply has ended (an unclosed answer's last line
        included)."""
        held, self._held = self._held, ""
        return held

    def _may_be_marker(self, partial: str) -> bool:
        """Whether the start of a line, ``partial``, may still turn out to open a block or
        close the answer it is in: then it waits for its line's end."""
        if partial.startswith("<"):
            return True
        return self._inside is not None and self._inside.startswith(partial.strip())

    def _line(self, line: str) -> str:
        """What to print of a complete ``line`` (with its newline)."""
        part, self._printed_part = self._printed_part, False
        header = None if part else _HEADER.match(line)
        if self._inside is not None:
            if header is not None and header.group(1) == self._inside:
                self._depth += 1
            elif not part and line.strip() == self._inside:
                self._depth -= 1
                if not self._depth:
                    self._inside = None
                    return ""
            return line + "\n"
        if header is not None and header.group(2) in self.kinds:
            self._inside, self._depth = header.group(1), 1
            return ""
        return line + "\n"
