"""Python source as declarations with whole-line ranges, read with Python's own ``ast``.

Everything the Python operations need from a file is here: its functions, classes and
methods (nested classes too) and the assignments of module and class bodies, each under
its qualified name (``f``, ``C``, ``C.m``, ``Outer.Inner.m``, ``CONSTANT``, ``C.attr``),
with the byte range it occupies *as whole lines*: its decorators and the comment lines
directly above it (same indentation, no blank line between) included. Only statements
that have their lines to themselves are declarations: ``x = 1; y = 2`` and ``class A: x
= 1`` are edited with what shares their lines. Functions inside functions, and
definitions under ``if``/``try``, belong to the statement they are in.

``ast`` gives each statement's first and last line, its decorators and nothing about
comments, which are read from the lines (above a declaration, never above the end of the
statement before it nor above its class's first line, so a ``#`` line inside a string is
never taken for one). Lines end with ``\\n``, ``\\r\\n`` or ``\\r``, as Python's tokenizer
counts them.

Validity is the interpreter's: a file is valid when ``compile`` accepts it, which also
refuses what parses but cannot run (``return`` outside a function, a misplaced ``from
__future__``). The grammar is the one of the Python running tai, so a project written for
a newer Python may use syntax this one refuses (see :mod:`tai_changes._py_edit`).
"""

from __future__ import annotations

import ast
import re
import sys
import warnings
from collections.abc import Iterator

import attrs

from tai_changes._decl import EditError

_NEWLINE = re.compile(rb"\r\n|\r|\n")
#: What may precede a statement on its first line: indentation, and a decorator's ``@``.
_LEAD = re.compile(rb"[ \t\f]*(?:@[ \t\f]*)?")
_INDENT = re.compile(rb"[ \t\f]*")
#: PEP 263's encoding declaration (on one of the first two lines).
_CODING = re.compile(rb"[ \t\f]*#.*?coding[:=][ \t]*[-\w.]+")
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
#: ``type X = …`` (Python 3.12 and later).
_TYPE_ALIAS = getattr(ast, "TypeAlias", None)
#: The grammar tai reads Python with: the interpreter's.
GRAMMAR = f"Python {sys.version_info.major}.{sys.version_info.minor}"


@attrs.frozen
class PyDecl:
    """A declaration: the qualified names it binds (one for a definition; an assignment
    may bind several), its scope (the qualified class it is in, ``""`` for the module),
    its first line, its whole-line byte range (``code``: where it begins without the
    comments above it), the indentation of its first line, and its position among the
    statements of its scope."""

    names: tuple[str, ...]
    scope: str
    line: int
    start: int
    code: int
    end: int
    indent: bytes
    index: int
    node: ast.stmt = attrs.field(eq=False, repr=False)

    @property
    def is_assignment(self) -> bool:
        """Whether it is an assignment (not a definition)."""
        return not isinstance(self.node, _DEFS)


class Lines:
    """The lines of a source: the byte offset where each begins, counted as Python does."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.starts = [0, *(match.end() for match in _NEWLINE.finditer(data))]
        if self.starts[-1] != len(data):
            self.starts.append(len(data))
        self.count = len(self.starts) - 1

    def start(self, line: int) -> int:
        """The offset where ``line`` (1-based) begins; past the last line, the end."""
        return self.starts[min(line, self.count + 1) - 1]

    def text(self, line: int) -> bytes:
        """``line`` (1-based) with its line ending."""
        return self.data[self.starts[line - 1] : self.starts[line]]

    def indent(self, line: int) -> bytes:
        """The indentation of ``line``."""
        match = _INDENT.match(self.text(line))
        return match.group() if match else b""

    def top_comments_end(self) -> int:
        """The last line of the comments at the top of the file that are not a
        declaration's: the shebang, the encoding line, and comments followed by a blank
        line (a licence); 0 when there are none."""
        last = seen = 0
        for number in range(1, self.count + 1):
            text = self.text(number).strip()
            if (number == 1 and text.startswith(b"#!")) or (number <= 2 and _CODING.match(text)):
                last = seen = number
            elif not text:
                last = seen
            elif text.startswith(b"#"):
                seen = number
            else:
                return last
        return seen


def describe(error: SyntaxError | ValueError) -> str:
    """A parser's complaint as ``line N: message``."""
    if isinstance(error, SyntaxError):
        where = f"line {error.lineno}: " if error.lineno else ""
        return f"{where}{error.msg}"
    return str(error)


def parse(source: bytes | str) -> ast.Module:
    """The syntax tree of ``source``; raises ``SyntaxError`` or ``ValueError``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a SyntaxWarning is the file's business
        return ast.parse(source)


def read_module(data: bytes) -> ast.Module:
    """The syntax tree of a file the operations need to read; raises :class:`EditError`."""
    try:
        return parse(data)
    except (SyntaxError, ValueError) as error:
        raise EditError(
            f"the file does not parse as {GRAMMAR} ({describe(error)}); declaration "
            "operations need a file this parser reads: use REPLACE or INSERT_* with find, "
            "or WRITE"
        ) from None


def problem(data: bytes) -> str | None:
    """Why ``data`` is not a valid Python file (``line N: …``), or ``None``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(data, "<file>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as error:
            return describe(error)
    return None


def _target_names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_names(element)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


def bound_names(node: ast.stmt) -> tuple[str, ...]:
    """The names a statement declares: a definition's name, the plain names an
    assignment binds (not attributes or items)."""
    if isinstance(node, _DEFS):
        return (node.name,)
    if _TYPE_ALIAS is not None and isinstance(node, _TYPE_ALIAS):
        return tuple(_target_names(node.name))  # type: ignore[attr-defined]
    if isinstance(node, ast.Assign):
        return tuple(name for target in node.targets for name in _target_names(target))
    if isinstance(node, ast.AnnAssign):
        return tuple(_target_names(node.target))
    return ()


def is_docstring(node: ast.stmt) -> bool:
    """Whether ``node`` is a string standing alone (a docstring when it comes first)."""
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _first_line(node: ast.stmt) -> tuple[int, int]:
    """The line and column where ``node`` begins, its decorators included."""
    decorators = getattr(node, "decorator_list", None)
    first = decorators[0] if decorators else node
    return first.lineno, first.col_offset


def _owns_lines(node: ast.stmt, lines: Lines) -> bool:
    """Whether ``node`` has its lines to itself: only indentation (and ``@``) before it,
    only blanks or a comment after it."""
    line, column = _first_line(node)
    end_line, end_column = node.end_lineno or line, node.end_col_offset or 0
    after = lines.text(end_line)[end_column:].strip()
    return bool(_LEAD.fullmatch(lines.text(line)[:column])) and (
        not after or after.startswith(b"#")
    )


def _comments_above(lines: Lines, line: int, floor: int, indent: bytes) -> int:
    """The first of the comment lines right above ``line`` at ``indent`` (no blank line
    between), not reaching ``floor``; ``line`` when there are none."""
    while line - 1 > floor:
        text = lines.text(line - 1)
        if not (text.startswith(indent) and text[len(indent) :].startswith(b"#")):
            break
        line -= 1
    return line


def _scan(body: list[ast.stmt], scope: str, floor: int, lines: Lines) -> Iterator[PyDecl]:
    previous = floor
    for index, node in enumerate(body):
        names = bound_names(node)
        if names and _owns_lines(node, lines):
            line = _first_line(node)[0]
            indent = lines.indent(line)
            first = _comments_above(lines, line, previous, indent)
            yield PyDecl(
                names=tuple(f"{scope}.{name}" if scope else name for name in names),
                scope=scope,
                line=line,
                start=lines.start(first),
                code=lines.start(line),
                end=lines.start((node.end_lineno or line) + 1),
                indent=indent,
                index=index,
                node=node,
            )
        if isinstance(node, ast.ClassDef):
            inner = f"{scope}.{node.name}" if scope else node.name
            yield from _scan(node.body, inner, node.lineno, lines)
        previous = node.end_lineno or previous


def declarations(tree: ast.Module, lines: Lines) -> list[PyDecl]:
    """The declarations of a parsed file, in order (a class before its members)."""
    return list(_scan(tree.body, "", 0, lines))


def header_end(tree: ast.Module, lines: Lines) -> tuple[int, bool]:
    """Where ``BEGIN`` puts a body — after the top comments
    (:meth:`Lines.top_comments_end`), the module docstring, and the imports that follow it
    (``from __future__`` first) — and whether that header ends with an import."""
    last = lines.top_comments_end()
    body = list(tree.body)
    if body and is_docstring(body[0]):
        last = max(last, body.pop(0).end_lineno or 0)
    imports = False
    for node in body:
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            break
        last, imports = max(last, node.end_lineno or 0), True
    return lines.start(last + 1), imports
