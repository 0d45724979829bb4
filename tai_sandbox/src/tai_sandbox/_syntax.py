"""Shell text as bash reads it: the syntax tree of a command and the text of its nodes.

Parsing is tree-sitter-bash's (a maintained grammar, the one editors use), never regular
expressions over the text. What bash does before it reads a word is done here, on the tree,
so that every rule downstream sees what bash sees: backslash-newlines are removed where
bash removes them (``r\\<newline>m`` is ``rm``). The tree-sitter builds of this machine
crash on some input (characters beyond U+FFFF, trees freed while walked): the workarounds
live here too.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node


@cache
def _parser() -> object:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


#: The trees of the latest parses, kept alive while their nodes are walked: a node read
#: after its tree is freed crashes the interpreter (py-tree-sitter issue 472, a
#: use-after-free in 0.26 seen here under fuzzing), so the walk never relies on the
#: binding to keep a tree alive.
_LIVE_TREES: deque[object] = deque(maxlen=256)


#: Characters beyond the Basic Multilingual Plane: tree-sitter-bash 0.25 reads memory it
#: does not own on some of them (a crash of the whole process, found by fuzzing here).
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def parse(text: str) -> tuple[Node, bytes]:
    """The syntax tree of ``text`` (its root node) and the bytes it indexes, as bash reads
    them: without the backslash-newlines it removes before it reads a word (see
    :func:`_joined`).

    Characters beyond U+FFFF are parsed as U+FFFD: bash gives no meaning to any character
    outside ASCII (each is part of a word), so the tree, and every decision made on it, is
    the same, and the parser never sees the characters that crash it.
    """
    source = _ASTRAL.sub("\ufffd", text).encode(errors="surrogateescape")
    while True:
        tree = _parser().parse(source)  # type: ignore[attr-defined]
        _LIVE_TREES.append(tree)
        joined = _joined(tree.root_node, source)
        if joined == source:
            return tree.root_node, source
        source = joined


#: Nodes whose text bash keeps as written, a backslash-newline included.
_VERBATIM = frozenset({"raw_string", "ansi_c_string", "comment"})
#: A backslash-newline, after the backslashes that escape each other (``\\<newline>`` is
#: a backslash and a newline).
_CONTINUATION = re.compile(rb"(?<!\\)((?:\\\\)*)\\\n")


def _joined(root: Node, source: bytes) -> bytes:
    """``source`` without the line continuations bash removes: every backslash-newline but
    those in single-quoted and ``$'…'`` strings, comments and the bodies of here-documents
    with a quoted delimiter. ``r\\<newline>m -rf /`` is ``rm -rf /``, and
    ``$H\\<newline>ome`` is ``$Home``. Removing one can change what the rest is (a ``#``
    that no longer starts a word), so :func:`parse` parses again until none is left."""
    if b"\\\n" not in source:
        return source
    out, position = bytearray(), 0
    for start, end in [*_verbatim_spans(root, source), (len(source), len(source))]:
        out += _CONTINUATION.sub(rb"\1", source[position:start]) + source[start:end]
        position = end
    return bytes(out)


def _verbatim_spans(node: Node, source: bytes) -> Iterator[tuple[int, int]]:
    """The byte ranges under ``node``, in order, where bash keeps backslash-newlines."""
    if node.type in _VERBATIM:
        yield node.start_byte, node.end_byte
        return
    quoted = node.type == "heredoc_redirect" and _quoted_delimiter(node, source)
    for child in node.children:
        if quoted and child.type == "heredoc_body":
            yield child.start_byte, child.end_byte
        else:
            yield from _verbatim_spans(child, source)


def _quoted_delimiter(redirect: Node, source: bytes) -> bool:
    """Whether the here-document ``redirect`` has a quoted delimiter (``<<'EOF'``,
    ``<<"EOF"``, ``<<\\EOF``): its body is read as written."""
    starts = [c for c in redirect.children if c.type == "heredoc_start"]
    return any(set(source[c.start_byte : c.end_byte]) & set(b"'\"\\") for c in starts)


def descendants(node: Node) -> Iterator[Node]:
    """``node`` and every node under it, in source order (without recursion: a deep tree
    does not exhaust the stack)."""
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        pending.extend(reversed(current.children))


def node_text(node: Node, source: bytes) -> str:
    """The source text of ``node``."""
    return source[node.start_byte : node.end_byte].decode(errors="replace")


def leaves(node: Node, source: bytes) -> Iterator[str]:
    """The texts of the leaf tokens under ``node``, in order."""
    if node.child_count == 0:
        yield node_text(node, source).strip()
    for child in node.children:
        yield from leaves(child, source)
