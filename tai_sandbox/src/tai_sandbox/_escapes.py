"""Backslash escapes in the four dialects bash has: ``$'…'`` strings, the format of
``printf``, the arguments of ``printf %b``, and ``echo -e``.

They look alike and differ in ways a command can hide behind: ``\\0155`` is ``m`` to
``echo -e`` and a carriage return and a ``5`` in ``$'…'``; ``\\155`` is ``m`` to ``printf``
and stays as written to ``echo``; ``\\c`` is a control character in ``$'…'``, the end of
all output for ``echo``, and two plain characters in a ``printf`` format. One decoder with
the differences spelled out as data keeps the four in step; the tests check each against
bash itself.
"""

from __future__ import annotations

from typing import Literal

import attrs

_SIMPLE = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", "\\": "\\",
}  # fmt: skip
_QUOTES = {"'": "'", '"': '"', "?": "?"}
#: ``\x``, ``\u``, ``\U``: how many hexadecimal digits each takes at most.
_HEX_WIDTH = {"x": 2, "u": 4, "U": 8}
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_OCTAL_DIGITS = frozenset("01234567")


@attrs.frozen
class Dialect:
    """How one of bash's readers of backslash escapes reads them."""

    #: Whether ``\\'``, ``\\"`` and ``\\?`` stand for the character (else the backslash stays).
    quotes: bool
    #: Whether ``\\nnn`` (one to three octal digits) is a character.
    plain_octal: bool
    #: Whether ``\\0nnn`` (up to three octal digits after the 0) is one (before the above).
    zero_octal: bool
    #: What ``\\c`` is: ``\\cX`` a control character, the end of the output, or as written.
    c: Literal["control", "stop", "literal"]


ANSI_C = Dialect(quotes=True, plain_octal=True, zero_octal=False, c="control")
PRINTF_FORMAT = Dialect(quotes=True, plain_octal=True, zero_octal=False, c="literal")
PRINTF_ARGUMENT = Dialect(quotes=False, plain_octal=True, zero_octal=True, c="stop")
ECHO = Dialect(quotes=False, plain_octal=False, zero_octal=True, c="stop")


def decode(text: str, dialect: Dialect) -> tuple[str, bool]:
    """The value of the escapes in ``text`` read as ``dialect`` reads them, and whether a
    ``\\c`` ended the output there."""
    out: list[str] = []
    index = 0
    while index < len(text):
        if text[index] != "\\" or index + 1 == len(text):
            out.append(text[index])
            index += 1
            continue
        code, index = text[index + 1], index + 2
        if code in _SIMPLE or (dialect.quotes and code in _QUOTES):
            out.append(_SIMPLE.get(code) or _QUOTES[code])
        elif code == "0" and dialect.zero_octal:
            end = _digits(text, index, _OCTAL_DIGITS, 3)
            out.append(chr(int(text[index:end] or "0", 8)))
            index = end
        elif code in _OCTAL_DIGITS and dialect.plain_octal:
            end = _digits(text, index - 1, _OCTAL_DIGITS, 3)
            out.append(chr(int(text[index - 1 : end], 8)))
            index = end
        elif code in _HEX_WIDTH and index < len(text) and text[index] in _HEX_DIGITS:
            end = _digits(text, index, _HEX_DIGITS, _HEX_WIDTH[code])
            point = int(text[index:end], 16)
            out.append(chr(point) if point <= 0x10FFFF else "\ufffd")
            index = end
        elif code == "c" and dialect.c == "stop":
            return "".join(out), True
        elif code == "c" and dialect.c == "control" and index < len(text):
            out.append(chr(ord(text[index]) & 0x1F))
            index += 1
        else:
            out.append("\\" + code)
    return "".join(out), False


def _digits(text: str, start: int, digits: frozenset[str], most: int) -> int:
    """Where the run of at most ``most`` of ``digits`` that starts at ``start`` ends."""
    end = start
    while end < len(text) and end - start < most and text[end] in digits:
        end += 1
    return end


def decode_ansi_c(text: str) -> str:
    """The value of the body of a ``$'…'`` string (a NUL ends it, as it ends a C string)."""
    return decode(text, ANSI_C)[0].partition("\x00")[0]
