"""Whether a code point belongs to the Unicode Han script.

Block delimiters are pairs of Han characters, chosen because they almost never start a line
of code or prose in a model's reply. The check runs on every candidate opening line, so it
is a sorted range table searched with :func:`bisect.bisect_right` rather than a lookup in
:mod:`unicodedata` (which has no script property, and whose Unicode version follows the
interpreter instead of the format). The table is Script=Han of Unicode 15.1.
"""

from __future__ import annotations

from bisect import bisect_right

#: Inclusive ``(first, last)`` code point ranges of the Han script, sorted and disjoint.
HAN_RANGES: tuple[tuple[int, int], ...] = (
    (0x2E80, 0x2E99),
    (0x2E9B, 0x2EF3),
    (0x2F00, 0x2FD5),
    (0x3005, 0x3005),
    (0x3007, 0x3007),
    (0x3021, 0x3029),
    (0x3038, 0x303B),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFA6D),
    (0xFA70, 0xFAD9),
    (0x16FE2, 0x16FE3),
    (0x16FF0, 0x16FF1),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B739),
    (0x2B740, 0x2B81D),
    (0x2B820, 0x2CEA1),
    (0x2CEB0, 0x2EBE0),
    (0x2EBF0, 0x2EE5D),
    (0x2F800, 0x2FA1D),
    (0x30000, 0x3134A),
    (0x31350, 0x323AF),
)

_FIRSTS: tuple[int, ...] = tuple(first for first, _ in HAN_RANGES)
_LASTS: tuple[int, ...] = tuple(last for _, last in HAN_RANGES)


def is_han(char: str) -> bool:
    """True when the single character ``char`` is a Han-script code point."""
    code = ord(char)
    index = bisect_right(_FIRSTS, code) - 1
    return index >= 0 and code <= _LASTS[index]
