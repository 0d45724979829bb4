"""Change blocks carried out: file edits applied to the in-memory store.

Why shaped so
    A change block is applied the moment it is parsed, to the run's
    :class:`~tai_core.store.FileStore`, never to the disk: the store reaches the disk only
    when the round succeeds, all files at once (invariant 2). So every operation here is a
    function from the store and a block to a new store (:func:`apply_change`), and a
    failure is a :class:`ChangeError` that fails the attempt — including the cases the
    original tool let pass silently (a MODIFY or DELETE whose target does not exist), with
    the closest names the file does declare.

One responsibility per module
    ``_text`` (REPLACE / INSERT_* on a ``find`` that occurs exactly once, BEGIN/END),
    ``_decl`` (what edits by declaration share in both languages: the operations, the
    error, the message naming the closest names), ``_splice`` (cutting and inserting
    whole lines, both languages); for Go ``_go_syntax`` (Go source as declarations with
    whole-line ranges; validity), ``_go_body`` (a block body read as declarations, keyword
    or not), ``_go_header`` (the ``package`` and ``import`` targets), ``_go_edit``
    (MODIFY / ADD_* / DELETE of declarations, ``BEGIN``/``END``); for Python
    ``_py_syntax`` (declarations with whole-line ranges, validity), ``_py_body`` (a body
    read and indented to its place), ``_py_edit`` (the operations); ``_format`` (formatting
    once per round) with ``goimports`` (getting the tool) and ``_pyformat`` (the project's
    Python formatter, and which program tai may run), ``_error_log`` (the XML record of a
    failure), ``_apply`` (dispatch by op and file type; the store's finisher), ``_patch``
    (the ``tai patch`` command).

Formatting once per round
    :func:`apply_change` returns a store carrying :func:`finish_changes` as a finisher
    (:meth:`~tai_core.store.FileStore.with_finisher`): the store's flush, and its
    ``-no-apply`` diff, format the Go files the round changed with goimports first, and
    the Python files with the formatter their project declares (ruff or black; none
    declared, none run). Per block it would cost a process each time and drop imports a
    later block of the same reply still needs.

The Go parser: tree-sitter-go
    Declarations are found in a real syntax tree, never by pattern-matching source. The
    tree comes from tree-sitter with the tree-sitter-go grammar, because it runs in process
    (a file parses in well under a millisecond, so each of a thousand blocks can re-parse),
    gives byte ranges of every node and the comments around them, reports errors and
    missing tokens precisely, and ships as wheels that need neither a compiler nor the Go
    toolchain. Asking Go's own ``go/parser`` would mean a process (and a toolchain) per
    parse. tree-sitter's grammar is more tolerant than Go's in a few corners, so it is the
    first check only: the final word on a file is goimports, which parses with Go's parser
    when the round's changes are finished and formats them exactly as gofmt does.

The Python parser: ``ast``
    Python files are read with the interpreter's own parser. It is exact — the grammar
    that will run the code, so "the result compiles" is the interpreter's verdict, not an
    approximation — in the standard library (nothing to install or build), fast enough to
    re-parse a file of thousands of lines per block, and gives what the edits need: each
    statement's first and last line and each definition's decorators. It keeps no
    comments, so a declaration's comments are read from the lines above it; it keeps no
    layout, so edits splice the original lines instead of unparsing a tree (libcst would
    round-trip layout, at the cost of a dependency and several times the time;
    tree-sitter-python is tolerant where Python is not, so validity would need ``ast``
    anyway). Its one limit is the version: the grammar is that of the Python running tai,
    so a file using newer syntax cannot be edited by declaration (the failure says so,
    and REPLACE / INSERT_* and WRITE still work on it).

Importing this package is cheap: its names are loaded on first use (PEP 562), tree_sitter
inside the functions that parse and tomllib when a Python file is formatted, so the plugin
that registers ``tai patch`` costs ``tai --help`` nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tai_changes._apply import ChangeError, apply_change, finish_changes, is_go

__all__ = ["ChangeError", "apply_change", "finish_changes", "is_go"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from tai_changes import _apply

        return getattr(_apply, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
