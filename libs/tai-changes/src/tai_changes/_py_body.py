"""The body of a Python change block, read as statements and indented to its place.

A body for a method may come at any indentation: as the method sits in its class, at the
left margin, or — the usual case — with its first line at the margin and the rest as
they were, since the block parser strips the body, and with it the first line's
indentation. So the first line's lost indentation is guessed, and the body dedented by it:
first as deep as the shallowest later line (a decorator, or several statements), then one
indentation step less (a single ``def`` whose body is the shallowest: the step is the
smallest one between the body's levels, else four spaces), then not at all. The first
reading that parses wins; when none does, the complaint of the one that parsed furthest
is reported, in the body's own line numbers.

The body is then indented to the target's indentation line by line, except the lines
that begin inside a string that spans lines (found with the tokenizer): their leading
whitespace is the string's content, kept byte for byte. Docstrings are the exception to
the exception: their lines move with the code, as formatters move them, since their
indentation is layout, not content (``inspect.cleandoc`` removes it).
"""

from __future__ import annotations

import ast
import io
import itertools
import tokenize

import attrs

from tai_changes._decl import EditError
from tai_changes._py_syntax import bound_names, describe, is_docstring, parse

#: The indentation step assumed when the body shows none (PEP 8's).
STEP = 4
_STRING_TOKENS = frozenset(
    {tokenize.STRING, *([tokenize.FSTRING_MIDDLE] if hasattr(tokenize, "FSTRING_MIDDLE") else [])}
)


@attrs.frozen
class PyBody:
    """A body read as Python: its text indented to its place (no final newline), the
    names its statements declare, whether it is imports only, and whether it is one bare
    expression (a new value for a constant)."""

    text: bytes
    names: tuple[str, ...]
    imports_only: bool
    expression: bool


def _width(line: str) -> int:
    return len(line) - len(line.lstrip(" \t\f"))


def _dedent(line: str, amount: int) -> str:
    return line[min(amount, _width(line)) :]


def _amounts(lines: list[str], strings: set[int]) -> list[int]:
    """The dedents to try, most likely first (see the module docstring); the rows in
    ``strings`` are string content, not layout."""
    widths = sorted(
        {
            _width(line)
            for row, line in enumerate(lines[1:], 2)
            if line.strip() and row not in strings
        }
    )
    if _width(lines[0]):
        return [min([_width(lines[0]), *widths])]
    if not widths:
        return [0]
    steps = [high - low for low, high in itertools.pairwise(widths)]
    step = min(steps, default=STEP)
    return list(dict.fromkeys([widths[0], max(widths[0] - step, 0), 0]))


def _read(lines: list[str], strings: set[int]) -> tuple[ast.Module, int]:
    """The first reading of ``lines`` that parses: its tree and how far it dedents."""
    failures: list[SyntaxError | ValueError] = []
    for amount in _amounts(lines, strings):
        try:
            return parse("\n".join(_dedent(line, amount) for line in lines) + "\n"), amount
        except (SyntaxError, ValueError) as error:
            failures.append(error)
    # the reading that got furthest; of equally far ones, one that is not about
    # indentation (a dedent tried in vain says "expected an indented block" where the
    # real fault is elsewhere on the line)
    furthest = max(
        failures,
        key=lambda e: (getattr(e, "lineno", 0) or 0, not isinstance(e, IndentationError)),
    )
    raise EditError(f"the body is not Python ({describe(furthest)})")


def _string_rows(lines: list[str]) -> set[int]:
    """The rows (1-based) that begin inside a string spanning lines. The lines are
    tokenized without their indentation, which moves no string's end (whitespace makes
    no quote) and spares the tokenizer the body's indentation, not yet known."""
    rows: set[int] = set()
    code = "\n".join(line.lstrip(" \t\f") for line in lines) + "\n"
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type in _STRING_TOKENS and token.end[0] > token.start[0]:
                rows.update(range(token.start[0] + 1, token.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        return set()
    return rows


def _docstring_rows(tree: ast.Module) -> set[int]:
    rows: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and is_docstring(body[0]):
            rows.update(range(body[0].lineno + 1, (body[0].end_lineno or 0) + 1))
    return rows


def read_body(body: str, indent: bytes) -> PyBody:
    """``body`` read as Python statements and indented by ``indent``; raises
    :class:`EditError` when no reading of it parses."""
    lines = body.replace("\r\n", "\n").replace("\r", "\n").rstrip().split("\n")
    while len(lines) > 1 and not lines[0].strip():
        lines.pop(0)
    strings = _string_rows(lines)
    tree, amount = _read(lines, strings)
    kept = strings - _docstring_rows(tree)
    margin = indent.decode("utf-8", "surrogateescape")
    out = [
        line if row in kept else (margin + _dedent(line, amount) if line.strip() else "")
        for row, line in enumerate(lines, start=1)
    ]
    statements = tree.body
    return PyBody(
        text="\n".join(out).encode("utf-8", "surrogateescape"),
        names=tuple(name for node in statements for name in bound_names(node)),
        imports_only=bool(statements)
        and all(isinstance(node, (ast.Import, ast.ImportFrom)) for node in statements),
        expression=len(statements) == 1 and isinstance(statements[0], ast.Expr),
    )
