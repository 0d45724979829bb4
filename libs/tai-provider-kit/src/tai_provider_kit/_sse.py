"""Server-sent events read from a body as it streams: the ``data`` of each event.

The event-stream format (WHATWG HTML, "server-sent events") as far as a model's stream
needs it: lines end with CR LF, LF or CR (a CR at the end of a piece waits for the next
piece, which may bring its LF); a blank line ends an event; ``data`` fields are joined
with newlines; comments (``:``) and the other fields (``event``, ``id``, ``retry``) are
passed over; an event the stream ends in the middle of is dropped, as the format says.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import AsyncIterator

_LINE_END = re.compile(r"\r\n|\r|\n")


def _lines(pending: str, final: bool) -> tuple[list[str], str]:
    """The complete lines at the start of ``pending`` and what is left of it (a CR at its
    end is a line's end only when no more is coming: ``final``)."""
    lines, start = [], 0
    while (end := _LINE_END.search(pending, start)) is not None:
        if end.group() == "\r" and end.end() == len(pending) and not final:
            break
        lines.append(pending[start : end.start()])
        start = end.end()
    return lines, pending[start:]


async def event_data(pieces: AsyncIterator[bytes]) -> AsyncIterator[str]:
    """The ``data`` of each complete event in the UTF-8 stream ``pieces``."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    pending, data, started, final = "", [], False, False
    while not final:
        piece = await anext(pieces, None)
        final = piece is None
        pending += decoder.decode(piece or b"", final=final)
        if not started and pending:
            pending, started = pending.removeprefix("\ufeff"), True
        lines, pending = _lines(pending, final)
        for line in lines:
            if not line:
                if data:
                    yield "\n".join(data)
                data = []
            else:  # a comment (":…") has the empty field name: passed over with the rest
                field, _, value = line.partition(":")
                if field == "data":
                    data.append(value.removeprefix(" "))
