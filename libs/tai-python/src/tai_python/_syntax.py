"""Python source read with tree-sitter-python: the parser, and a node's text as written.

A summary (:mod:`._summary`) shows signatures, bases, decorators, annotations and values
as the module writes them, on one line each: :func:`flat` gives a node's source with its
comments left out and each line break (with the indentation after it) turned into a
space — none after an opening bracket or before a closing one, where the trailing comma
that black leaves before it goes too (unless it is what makes a one-element tuple). Most
of what it is asked for sits on one line, which is its text as it is.

A string's value (a docstring) is read from its text when it is a plain literal without
escapes — nearly every docstring — and by :func:`ast.literal_eval` otherwise, so escapes,
prefixes and implicit concatenation mean what they mean to Python.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

_lock = threading.Lock()
_OPENERS = frozenset({"(", "[", "{"})
_CLOSERS = frozenset({")", "]", "}"})
#: Containers whose trailing comma may go without changing what they mean.
_COMMA_FREE = frozenset({
    "parameters", "lambda_parameters", "argument_list", "type_parameter", "list", "set",
    "dictionary", "tuple",
})  # fmt: skip
_PLAIN = re.compile(r'(?s)[rRuU]?("""|\'\'\'|"|\')(.*)\1')
_EXTRAS = frozenset({"comment", "line_continuation"})
_STRINGS = frozenset({"string", "concatenated_string", "parenthesized_expression"})


@functools.cache
def _parser() -> Parser:
    import tree_sitter_python
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_python.language()))


def parse(source: bytes) -> Tree:
    """The syntax tree of ``source`` (UTF-8). One parser serves every thread, one parse at
    a time: a parser must not be used by two at once, and a parse holds the GIL anyway."""
    with _lock:
        return _parser().parse(source)


def text(node: Node) -> str:
    """``node``'s source as written."""
    return (node.text or b"").decode("utf-8", "replace")


def code(node: Node) -> list[Node]:
    """``node``'s named children that are not comments."""
    return [child for child in node.named_children if child.type != "comment"]


def _leaves(node: Node) -> Iterator[Node]:
    """The tokens of ``node`` in order, a string being one token."""
    if node.child_count == 0 or node.type == "string":
        yield node
        return
    for child in node.children:
        yield from _leaves(child)


def flat(node: Node, limit: int | None = None) -> str:
    """``node``'s source on one line (see the module docstring); past ``limit`` characters
    the rest may be left out."""
    written = text(node)
    if "\n" not in written:  # nor a comment, then: one ends its line
        return written
    source = node.text or b""
    base = node.start_byte
    pieces: list[str] = []
    previous: Node | None = None
    size = 0
    for leaf in _leaves(node):
        if leaf.type in _EXTRAS:
            continue
        if previous is not None:
            gap = source[previous.end_byte - base : leaf.start_byte - base]
            if b"\n" not in gap:
                pieces.append(gap.decode("utf-8", "replace"))
            elif leaf.type in _CLOSERS:
                parent = previous.parent
                if previous.type == "," and parent is not None and _comma_free(parent):
                    pieces.pop()
            elif previous.type not in _OPENERS:
                pieces.append(" ")
        pieces.append(text(leaf))
        size += len(pieces[-1])
        if limit is not None and size > limit:
            break
        previous = leaf
    return "".join(pieces)


def _comma_free(container: Node) -> bool:
    return container.type in _COMMA_FREE and (container.type != "tuple" or len(code(container)) > 1)


def string_value(node: Node) -> str | None:
    """The value of a string literal (``None`` for anything else: bytes, f-strings, other
    expressions)."""
    if node.type not in _STRINGS:
        return None
    written = text(node)
    plain = _PLAIN.fullmatch(written) if node.type == "string" else None
    if plain and "\\" not in plain.group(2):
        return plain.group(2)
    import ast

    try:
        value = ast.literal_eval(f"({written}\n)")
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, str) else None
