"""The opening line of a heredoc block: ``<<`` + a two-Han-character delimiter + a header.

The block parser hands this module one complete line at a time and never more than that, so
the answer for a line depends on that line alone: that is what lets the parser report a
malformed header as final as soon as the line's newline has arrived, whatever the chunking.
The header is short, so it is read character by character, unlike the reply's body text.

Grammar (``WS`` is a space or a tab; trailing whitespace and ``\\r`` are ignored)::

    opening := '<<' WS* DELIM (WS* header)? WS* EOL
    header  := NAME WS* ( '(' params ')' )?
    params  := ( (WS|',')* NAME WS* '=' WS* value )* (WS|',')*
    NAME    := [A-Za-z0-9_.:-]+
    value   := "..." | '...' | bare
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from types import MappingProxyType

import attrs

from tai_core.blocks._han import is_han

_WS = " \t"
#: The characters of a NAME (a kind, a parameter): the grammar's, for the package.
NAME_CHARS = frozenset(string.ascii_letters + string.digits + "_.:-")
_DELIMITER_ENDS = " \t("
_BARE_ENDS = " \t,)"
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}


def name_prefix(text: str) -> str:
    """The longest start of ``text`` made of name characters (what a kind would be)."""
    end = 0
    while end < len(text) and text[end] in NAME_CHARS:
        end += 1
    return text[:end]


class HeaderError(ValueError):
    """A header that does not follow the grammar.

    ``detail`` says what is wrong and at which column; ``kind`` is the longest prefix of the
    header made of name characters (what the model most likely meant as the kind).
    """

    def __init__(self, detail: str, kind: str) -> None:
        super().__init__(detail)
        self.detail = detail
        self.kind = kind


def _freeze(params: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(params))


@attrs.frozen
class Opening:
    """A line that opens a block: its delimiter, and its header or what is wrong with it.

    ``error`` is ``None`` for a valid header (or none: ``kind`` is then ``""``); otherwise it
    is the detail of a malformed header and ``kind`` the name-character prefix of the header.
    """

    delimiter: str
    kind: str = ""
    params: Mapping[str, str] = attrs.field(factory=dict, converter=_freeze, hash=False)
    error: str | None = None


def parse_opening(line: str) -> Opening | None:
    """Read ``line`` (one line, without its newline) as an opening line.

    ``None`` means the line is prose: it does not start with ``<<``, or the token after the
    ``<<`` is not exactly two Han characters.
    """
    if not line.startswith("<<"):
        return None
    text = line.rstrip()
    size = len(text)
    pos = 2
    while pos < size and text[pos] in _WS:
        pos += 1
    end = pos + 2
    if end > size or (end < size and text[end] not in _DELIMITER_ENDS):
        return None
    delimiter = text[pos:end]
    if not (is_han(delimiter[0]) and is_han(delimiter[1])):
        return None
    while end < size and text[end] in _WS:
        end += 1
    if end == size:
        return Opening(delimiter)
    try:
        kind, params = parse_header(text[end:], column=end + 1)
    except HeaderError as exc:
        return Opening(delimiter, exc.kind, error=exc.detail)
    return Opening(delimiter, kind, params)


def parse_header(header: str, column: int = 1) -> tuple[str, dict[str, str]]:
    """Parse ``NAME WS* ('(' params ')')?`` into the kind and its parameters.

    ``column`` is the 1-based column of the header's first character in its line, used in
    error details. A repeated parameter keeps its first position and its last value.
    Raises :class:`HeaderError` when the header does not follow the grammar.
    """
    return _HeaderReader(header, column).read()


class _HeaderReader:
    """A cursor over one header; each method consumes one grammar element."""

    def __init__(self, text: str, column: int) -> None:
        self.text = text
        self.size = len(text)
        self.pos = 0
        self.column = column
        self.kind = ""

    def read(self) -> tuple[str, dict[str, str]]:
        self.kind = self._name()
        after_kind = self.pos
        if not self.kind:
            raise self._fail(f"expected a kind name, found {self._peek()!r}")
        self._skip(_WS)
        if self.pos == self.size:
            return self.kind, {}
        if self._peek() != "(":
            if self.pos == after_kind:
                raise self._fail(f"invalid character {self._peek()!r} in kind name")
            raise self._fail(f'unexpected text after kind "{self.kind}"')
        self.pos += 1
        params: dict[str, str] = {}
        while True:
            self._skip(_WS + ",")
            char = self._peek()
            if char == ")":
                self.pos += 1
                break
            if not char:
                raise self._fail("missing ')' closing the parameters")
            name = self._name()
            if not name:
                raise self._fail(f"invalid character {char!r} where a parameter name belongs")
            if self._peek() not in _WS + "=,)":
                raise self._fail(f"invalid character {self._peek()!r} in parameter name")
            self._skip(_WS)
            if self._peek() != "=":
                raise self._fail(f'expected "=" after parameter name "{name}"')
            self.pos += 1
            self._skip(_WS)
            params[name] = self._value(name)
        self._skip(_WS)
        if self.pos < self.size:
            raise self._fail("unexpected text after ')'")
        return self.kind, params

    def _fail(self, what: str, pos: int | None = None) -> HeaderError:
        where = self.pos if pos is None else pos
        return HeaderError(f"{what} at column {self.column + where}", self.kind)

    def _peek(self) -> str:
        return self.text[self.pos] if self.pos < self.size else ""

    def _skip(self, chars: str) -> None:
        while self.pos < self.size and self.text[self.pos] in chars:
            self.pos += 1

    def _name(self) -> str:
        start = self.pos
        while self.pos < self.size and self.text[self.pos] in NAME_CHARS:
            self.pos += 1
        return self.text[start : self.pos]

    def _value(self, name: str) -> str:
        quote = self._peek()
        if quote in ('"', "'"):
            return self._quoted(name, quote)
        start = self.pos
        while self.pos < self.size and self.text[self.pos] not in _BARE_ENDS:
            self.pos += 1
        if self.pos == start:
            raise self._fail(f'missing value for parameter "{name}"')
        return self.text[start : self.pos]

    def _quoted(self, name: str, quote: str) -> str:
        opened = self.pos
        self.pos += 1
        parts: list[str] = []
        while self.pos < self.size:
            char = self.text[self.pos]
            if char == quote:
                self.pos += 1
                return "".join(parts)
            if char == "\\" and self.pos + 1 < self.size:
                following = self.text[self.pos + 1]
                parts.append(_ESCAPES.get(following, char + following))
                self.pos += 2
            else:
                parts.append(char)
                self.pos += 1
        raise self._fail(f'unterminated quoted value for parameter "{name}" opened', pos=opened)
