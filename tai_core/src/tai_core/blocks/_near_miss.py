"""Opening lines that miss the format by their delimiter: read as text, and said to be.

A line that starts with ``<<`` but whose delimiter is not two Chinese characters is prose
to the parser (:mod:`._header`: the rule that lets a reply quote a shell heredoc, ``cat
<<EOF``). When such a line names a kind tai knows — ``<<EOF shell``, ``<<AB summary``,
``<<change(op="WRITE" …)`` — the model meant a block and would otherwise believe it ran:
it wrote a command, nothing happened, nothing was said. :func:`misdelimited` finds those
lines in a whole reply, after the parser, without changing what the parser decides; the
pipeline feeds them back like malformed blocks and ``tai parse`` lists them. A line whose
next word is no known kind (the shell's own heredocs) is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from tai_core.blocks._header import name_prefix, parse_opening
from tai_core.blocks._model import Block, BlockParseError

#: A line that starts with ``<<`` (``^`` after ``\n`` only, as the parser ends lines).
_OPENING = re.compile(r"^<<[^\n]*", re.MULTILINE)


def misdelimited(
    text: str, kinds: Collection[str], blocks: Collection[Block] = ()
) -> list[BlockParseError]:
    """The lines of ``text`` (a whole reply) that open a block of one of ``kinds`` with a
    delimiter that is not two Chinese characters, or none, each as a malformed block; a
    line inside one of ``blocks`` (the reply's parsed blocks) is part of a body, not
    missed."""
    covered = [(block.start, block.end) for block in blocks]
    found: list[BlockParseError] = []
    number, counted = 1, 0  # lines as the parser counts them: ended by \n alone
    for opening in _OPENING.finditer(text):  # only the lines that start with <<
        offset = opening.start()
        number, counted = number + text.count("\n", counted, offset), offset
        line = opening.group().removesuffix("\r")
        if parse_opening(line) is not None:
            continue
        if any(low <= offset < high for low, high in covered):
            continue
        words = line[2:].split(None, 1)
        if not words:
            continue
        first = words[0]
        if name_prefix(first) in kinds and (len(words) == 1 or "(" in first):
            delimiter, kind = "", name_prefix(first)  # `<<summary`, `<<change(op=…)`
        elif len(words) == 2 and name_prefix(words[1]) in kinds:
            delimiter, kind = first, name_prefix(words[1])
        else:
            continue
        detail = (
            f"the delimiter {delimiter!r} is not two Chinese characters"
            if delimiter
            else "it has no delimiter"
        )
        found.append(
            BlockParseError(
                reason="malformed",
                kind=kind,
                delimiter=delimiter,
                line=number,
                start=offset,
                detail=f"{detail}, so it was read as text and did not run: open a block "
                "with << and two Chinese characters, and close it with the same two alone",
                content=line,
            )
        )
    return found
