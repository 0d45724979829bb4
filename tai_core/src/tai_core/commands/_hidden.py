"""Leaving blocks of some kinds out of the reply as it is printed, and the wrapping of others.

In a chat the reply is the answer. A ``response`` block *is* the answer: its body is
printed, the lines that open and close it are not (the terminal UI shows answers the same
way, ``tai_core.tui._state.readable``). Blocks of other kinds may be left out whole, for a
front-end that shows what they did on lines of its own (``tai ai`` leaves none out: a
``memory`` block writes what every later chat's prompt carries, and nothing else would
show the user what was remembered). The reply streams in arbitrary pieces, so the
filter works on lines: a complete line is printed or held back whole, and a partial line is
printed at once unless it could still become a block's first line (it starts with ``<``)
or the closing line of the block being unwrapped, so the text streams as before except at
the start of a line that may open or close a block.
"""

from __future__ import annotations

import re

#: A block's first line: ``<<DELIMITER kind`` with optional parameters.
_HEADER = re.compile(r"^<<(\S+)\s+([A-Za-z0-9_.:-]+)\s*(?:\(.*)?$")


class HiddenBlocks:
    """A streaming filter of reply text that drops the blocks of ``kinds`` and prints the
    bodies of the blocks of ``unwrapped`` without their first and closing lines."""

    def __init__(self, kinds: frozenset[str], unwrapped: frozenset[str] = frozenset()) -> None:
        self.kinds = kinds
        self.unwrapped = unwrapped
        self._held = ""
        #: The delimiter of the block being passed over or unwrapped, if any, how deep (a
        #: line opening a block with the same delimiter nests, as the parser has it), and
        #: whether its body is printed.
        self._inside: str | None = None
        self._depth = 0
        self._printing = False
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
        """What is left to print when the reply has ended (an unclosed unwrapped block's
        last line included; a hidden block's never)."""
        held, self._held = self._held, ""
        return held if self._inside is None or self._printing else ""

    def _may_be_marker(self, partial: str) -> bool:
        """Whether the start of a line, ``partial``, may still turn out to open a block or
        close the one it is in; outside a block's body it then waits for its line's end."""
        if self._inside is None:
            return partial.startswith("<")
        if not self._printing:
            return True  # a hidden block's line: never printed
        return partial.startswith("<") or self._inside.startswith(partial.strip())

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
            return line + "\n" if self._printing else ""
        if header is not None and header.group(2) in self.kinds | self.unwrapped:
            self._inside, self._depth = header.group(1), 1
            self._printing = header.group(2) in self.unwrapped
            return ""
        return line + "\n"
