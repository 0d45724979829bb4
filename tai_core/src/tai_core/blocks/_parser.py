"""The incremental heredoc block parser: a model's reply, fed in chunks, into blocks and errors.

Two invariants shape this module.

*Chunking independence.* Every decision depends on complete lines only, so the parser keeps
the unfinished last line aside (as a list of pieces) and scans text only up to the last
newline received. A result is returned by :meth:`BlockParser.feed` only once no later text
can change it; the concatenation of everything ``feed`` and ``finish`` return is therefore
the same for any split of the reply, and equal to :func:`parse_blocks` of the whole.

*Linear work.* Each complete line is scanned exactly once, when it arrives: the parser looks
for a newline only in the new chunk, and the state that must survive a chunk boundary (the
open block's delimiter, depth, body pieces, line numbers and near-miss hints) is kept, never
recomputed. The scan itself does not walk lines in Python: outside a block only lines that
start with ``<<`` matter, inside a block only lines containing its delimiter, and both are
found with :meth:`str.find`. The one permitted second look is at :meth:`BlockParser.finish`,
where the body of a block that never closed is scanned again as plain text.
"""

from __future__ import annotations

from typing import TypeAlias

import attrs

from tai_core.blocks._header import Opening, parse_opening
from tai_core.blocks._model import ERROR_CONTENT_HEAD, ERROR_CONTENT_LIMIT, Block, BlockParseError

#: Near-miss closing lines reported, at most, for one unclosed block.
MAX_HINTS = 10

Result: TypeAlias = Block | BlockParseError


def clip_error_content(text: str) -> str:
    """``text`` cut to :data:`ERROR_CONTENT_LIMIT` UTF-8 bytes, keeping its head and tail.

    The cut falls on character boundaries only; the marker in the middle gives the number of
    bytes really left out.
    """
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= ERROR_CONTENT_LIMIT:
        return text
    head_end = ERROR_CONTENT_HEAD
    while data[head_end] & 0xC0 == 0x80:
        head_end -= 1
    tail_start = len(data) - (ERROR_CONTENT_LIMIT - ERROR_CONTENT_HEAD)
    while tail_start < len(data) and data[tail_start] & 0xC0 == 0x80:
        tail_start += 1
    head = data[:head_end].decode("utf-8", "surrogatepass")
    tail = data[tail_start:].decode("utf-8", "surrogatepass")
    return f"{head}\n...[truncated, {tail_start - head_end} bytes omitted]...\n{tail}"


def _malformed(opening: Opening, line: str, line_no: int, start: int) -> BlockParseError:
    return BlockParseError(
        reason="malformed",
        kind=opening.kind,
        delimiter=opening.delimiter,
        line=line_no,
        start=start,
        detail=opening.error or "",
        content=clip_error_content(line.removesuffix("\r")),
    )


@attrs.define
class _OpenBlock:
    """What must survive chunk boundaries while a block waits for its closing line."""

    opening: Opening
    #: The opening line as written, its newline included when it has one.
    opening_text: str
    line: int
    start: int
    #: Character offset of the first body line (whose line number is ``line + 1``).
    body_start: int
    depth: int = 1
    #: The text received after the opening line, in the pieces it came in.
    pieces: list[str] = attrs.field(factory=list)
    hints: list[str] = attrs.field(factory=list)

    def closed(self, end: int) -> Block:
        """The block, its closing line having ended at offset ``end``."""
        opening = self.opening
        return Block(
            kind=opening.kind,
            delimiter=opening.delimiter,
            params=opening.params,
            body="".join(self.pieces).strip(),
            line=self.line,
            start=self.start,
            end=end,
        )

    def unclosed(self, rest: str) -> BlockParseError:
        """The error for this block at the end of the reply, ``rest`` being its whole body."""
        delimiter = self.opening.delimiter
        return BlockParseError(
            reason="unclosed",
            kind=self.opening.kind,
            delimiter=delimiter,
            line=self.line,
            start=self.start,
            detail=f'has no matching closing line "{delimiter}"',
            content=clip_error_content(self.opening_text + rest),
            hints=tuple(self.hints),
        )


class BlockParser:
    """Turns a reply fed in chunks of any size into blocks and parse errors, in text order.

    :meth:`feed` returns the results that are final; :meth:`finish` returns the rest once the
    reply is complete. A parser serves one reply: feeding after ``finish`` raises.
    """

    def __init__(self) -> None:
        #: The unfinished last line, in the pieces it arrived in.
        self._pending: list[str] = []
        #: Character offset and 1-based line number where the next scanned text starts.
        self._offset = 0
        self._line_no = 1
        self._open: _OpenBlock | None = None
        self._finished = False

    def feed(self, chunk: str) -> list[Result]:
        """Take the next ``chunk`` of the reply; return the results it made final."""
        if self._finished:
            raise RuntimeError("BlockParser.feed() called after finish()")
        cut = chunk.rfind("\n") + 1
        if not cut:
            if chunk:
                self._pending.append(chunk)
            return []
        pending = self._pending
        if pending:
            pending.append(chunk[:cut])
            lines = "".join(pending)
        else:
            lines = chunk[:cut]
        self._pending = [chunk[cut:]] if cut < len(chunk) else []
        return self._scan(lines)

    def finish(self) -> list[Result]:
        """End of the reply: return every remaining result, unclosed blocks included."""
        if self._finished:
            raise RuntimeError("BlockParser.finish() called twice")
        self._finished = True
        tail = "".join(self._pending)
        self._pending = []
        results = self._scan(tail) if tail else []
        while self._open is not None:
            block = self._open
            self._open = None
            rest = "".join(block.pieces)
            results.append(block.unclosed(rest))
            self._offset = block.body_start
            self._line_no = block.line + 1
            results.extend(self._scan(rest))
        return results

    def _scan(self, text: str) -> list[Result]:
        """Scan ``text``, which starts at a line start and ends at one (or at the reply's end).

        Updates the open block and the position; returns the results completed in ``text``.
        """
        results: list[Result] = []
        size = len(text)
        pos = 0
        while pos < size:
            if self._open is None:
                pos = self._scan_prose(text, pos, results)
            else:
                pos = self._scan_body(self._open, text, pos, results)
        self._offset += size
        return results

    def _scan_prose(self, text: str, pos: int, results: list[Result]) -> int:
        """Outside a block: handle the next line starting with ``<<``; return where to go on."""
        if not text.startswith("<<", pos):
            found = text.find("\n<<", pos)
            if found < 0:
                self._line_no += text.count("\n", pos)
                return len(text)
            self._line_no += text.count("\n", pos, found) + 1
            pos = found + 1
        end = text.find("\n", pos)
        after = len(text) if end < 0 else end + 1
        line = text[pos:end] if end >= 0 else text[pos:]
        opening = parse_opening(line)
        if opening is not None:
            start = self._offset + pos
            if opening.error is not None:
                results.append(_malformed(opening, line, self._line_no, start))
            else:
                body_start = self._offset + after
                self._open = _OpenBlock(opening, text[pos:after], self._line_no, start, body_start)
        self._line_no += 1
        return after

    def _scan_body(self, block: _OpenBlock, text: str, pos: int, results: list[Result]) -> int:
        """Inside ``block``: only lines holding its delimiter matter. Return where to go on."""
        delimiter = block.opening.delimiter
        body_from = pos
        while True:
            found = text.find(delimiter, pos)
            if found < 0:
                self._line_no += text.count("\n", pos)
                block.pieces.append(text[body_from:] if body_from else text)
                return len(text)
            newline = text.rfind("\n", pos, found)
            line_start = pos if newline < 0 else newline + 1
            self._line_no += text.count("\n", pos, line_start)
            end = text.find("\n", found)
            pos = len(text) if end < 0 else end + 1
            closes = self._body_line(block, text[line_start:end] if end >= 0 else text[line_start:])
            self._line_no += 1
            if closes:
                block.pieces.append(text[body_from:line_start])
                results.append(block.closed(self._offset + pos))
                self._open = None
                return pos

    def _body_line(self, block: _OpenBlock, line: str) -> bool:
        """Account for one body ``line`` holding the delimiter; True when it closes ``block``."""
        delimiter = block.opening.delimiter
        stripped = line.strip()
        if stripped == delimiter:
            block.depth -= 1
            return not block.depth
        if line.startswith("<<"):
            nested = parse_opening(line)
            if nested is not None and nested.error is None and nested.delimiter == delimiter:
                block.depth += 1
                return False
        if len(block.hints) < MAX_HINTS and (
            stripped.startswith(delimiter) or stripped.endswith(delimiter)
        ):
            block.hints.append(f'line {self._line_no}: "{line.rstrip()}"')
        return False


def parse_blocks(text: str) -> list[Result]:
    """Parse a whole reply: the same as feeding it in one chunk and finishing."""
    parser = BlockParser()
    return parser.feed(text) + parser.finish()
