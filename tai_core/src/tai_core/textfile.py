"""Text tai reads as input — configuration, replies, ``.AI`` files — decoded exactly.

Two rules, one place. Input is UTF-8 or it is refused with one line naming the file, the
line and the byte, never a ``UnicodeDecodeError`` traceback and never a silent
replacement (a ``U+FFFD`` written into a source file is a corruption nobody asked for).
And input is decoded from its bytes without universal newlines: a ``\\r`` in a change
block's body is part of the body, so a file written with ``\\r\\n`` keeps them; reading in
text mode would turn every ``\\r`` into ``\\n`` before any parser could see it.
"""

from __future__ import annotations

from pathlib import Path


class NotUTF8Error(ValueError):
    """Input that is not UTF-8; the message names where, the line and the byte."""


def decode_utf8(data: bytes, where: str) -> str:
    """``data`` as text, exactly (``\\r`` kept); :class:`NotUTF8Error` naming ``where``."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise NotUTF8Error(
            f"{where}: line {line}: not UTF-8 text (byte 0x{data[error.start]:02x})"
        ) from None


def read_utf8(path: Path) -> str:
    """The text of the file ``path`` (see :func:`decode_utf8`); ``OSError`` when it cannot
    be read."""
    return decode_utf8(path.read_bytes(), str(path))


def checked_utf8(text: str, where: str) -> str:
    """``text`` from outside (an argument, standard input read by Python with its
    undecodable bytes kept as lone surrogates) when it is UTF-8; :class:`NotUTF8Error`
    naming ``where``, the line and the first byte that is not."""
    if is_utf8(text):
        return text
    return decode_utf8(text.encode("utf-8", "surrogateescape"), where)


def is_utf8(text: str) -> bool:
    """True when ``text`` (a file name, say) can be written as UTF-8: no lone surrogates,
    which is how Python gives the undecodable bytes of a name."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
