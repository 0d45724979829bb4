"""Python change operations on declarations: MODIFY, ADD_BEFORE, ADD_AFTER and DELETE.

Each operation is a function of the file's text, the target and the body to the new
text, as for Go: declarations are found in the syntax tree (:mod:`._py_syntax`), whole
lines are spliced (:mod:`._splice`), and the result is accepted only if it compiles.

The rules, where Python differs from Go:

- A target is a qualified name: ``f``, ``C``, ``C.m``, ``Outer.Inner.m``, ``CONSTANT``,
  ``C.attr`` (a leading ``def``/``class`` and a trailing ``()`` are dropped, and so is a
  module path naming the file itself: ``click.core.Command.invoke`` in
  ``src/click/core.py``).
- Several definitions of one name *next to each other* in one scope are one target: a
  property's getter, setter and deleter, ``@overload`` stubs and their implementation.
  MODIFY replaces them all with the body, DELETE removes them all. No change removes more
  definitions of a name than its body gives back (a getter-only body for a property with
  a setter, an implementation without its overloads): it fails naming the lines, since the
  model rarely means to drop what it did not show (:func:`_refuse_drops`). A name defined again
  further away (the same scope, other statements between) is ambiguous: MODIFY and DELETE
  fail, naming the lines; ADD_* go by the first.
- MODIFY of an assignment whose body is a bare expression gives it that new value (its
  annotation and the comments above it kept).
- BEGIN is after the top comments, the module docstring and the leading imports (an
  import-only body joins them); END is the end of the file. Both take ADD_* only.
- ADD_* of a target the file lacks fails like MODIFY (the anchor is missing; guessing
  would put code where nobody asked for it); a missing file is created only by ADD_* with
  ``BEGIN``/``END`` (or WRITE).
- A body declaring names its scope already has replaces them, as in Go: an ADD whose
  body's name exists goes in its place, and the other definitions of the body's names in
  that scope are removed.

A file this interpreter cannot parse — broken already, or written for a newer Python
(:data:`~._py_syntax.GRAMMAR`) — cannot be edited by declaration; the message says so
and points to REPLACE/INSERT_* and WRITE, which work on it. A WRITE of a Python file
must compile too, unless the file it replaces did not (then it is taken as written: WRITE
is how such a file is edited), see :func:`valid_write`.
"""

from __future__ import annotations

import ast
from pathlib import PurePosixPath

from tai_changes._decl import ADD_OPS, EDGES, EditError, not_found
from tai_changes._py_body import PyBody, read_body
from tai_changes._py_syntax import (
    GRAMMAR,
    Lines,
    PyDecl,
    declarations,
    header_end,
    problem,
    read_module,
)
from tai_changes._splice import append_text, cut, decode, encode, insert_after, splice

_KEYWORDS = ("async def ", "def ", "class ")


def is_python(key: str) -> bool:
    """Whether a path is edited as Python source."""
    return key.endswith((".py", ".pyi"))


def _valid(data: bytes) -> str:
    """``data`` with one final newline, if it compiles."""
    data = data.rstrip() + b"\n" if data.strip() else b""
    found = problem(data)
    if found is not None:
        raise EditError(f"the result is not valid {GRAMMAR} ({found})", modified=decode(data))
    return decode(data)


def valid_write(text: str, before: str | None) -> str:
    """The text of a WRITE of a Python file, which must compile unless the file it
    replaces (``before``) did not either."""
    if before is not None and problem(encode(before)) is not None:
        return text
    found = problem(encode(text))
    if found is not None:
        raise EditError(f"the text is not valid {GRAMMAR} ({found})", modified=text)
    return text


def target_key(target: str, path: str, names: set[str]) -> str:
    """The qualified name ``target`` denotes in the file at ``path`` declaring ``names``."""
    key = target.strip()
    for keyword in _KEYWORDS:
        key = key.removeprefix(keyword).strip()
    key = key.removesuffix("()").strip()
    if key in names:
        return key
    module = PurePosixPath(path).with_suffix("").parts
    if module and module[-1] == "__init__":
        module = module[:-1]
    parts = key.split(".")
    for count in range(1, len(parts)):
        rest = ".".join(parts[count:])
        if tuple(parts[:count]) == module[-count:] and rest in names:
            return rest
    return key


def _groups(decls: list[PyDecl], key: str) -> list[list[PyDecl]]:
    """The runs of declarations of ``key`` next to each other in their scope."""
    runs: list[list[PyDecl]] = []
    for decl in decls:
        if key not in decl.names:
            continue
        last = runs[-1][-1] if runs else None
        if last is not None and last.scope == decl.scope and last.index + 1 == decl.index:
            runs[-1].append(decl)
        else:
            runs.append([decl])
    return runs


def _blank(scope: str) -> int:
    """Blank lines between declarations: two at the top level, one in a class (PEP 8)."""
    return 1 if scope else 2


def _refuse_drops(removed: list[PyDecl], scope: str, body: PyBody) -> None:
    """Fail when the change would remove more definitions of a name than the body gives
    back: a property's setter or an overload would vanish without a word otherwise."""
    for name in dict.fromkeys(body.names):
        full = f"{scope}.{name}" if scope else name
        gone = [decl for decl in removed if full in decl.names and not decl.is_assignment]
        given = body.names.count(name)
        if len(gone) > given:
            lines = ", ".join(str(decl.line) for decl in gone)
            raise EditError(
                f"{full} is defined {len(gone)} times (lines {lines}: a property's getter "
                f"and setter, or overloads, are one target) and the body defines it {given} "
                f"time(s), so the change would drop the rest; give every definition you keep "
                "in the body, or change one of them with REPLACE"
            )


def _place(
    data: bytes, decls: list[PyDecl], scope: str, span: tuple[int, int], body: PyBody
) -> bytes:
    """``body`` in the place of ``span``, and the other declarations in ``scope`` of the
    names the body declares removed (never more definitions of a name than the body
    gives: :func:`_refuse_drops`)."""
    names = {f"{scope}.{name}" if scope else name for name in body.names}
    low, high = span
    others = [
        decl for decl in decls
        if decl.scope == scope and set(decl.names) <= names
        and (decl.end <= low or decl.start >= high)
    ]  # fmt: skip
    inside = [decl for decl in decls if decl.scope == scope and low <= decl.start < high]
    _refuse_drops([*inside, *others], scope, body)
    edits = [(low, high, body.text + b"\n")]
    edits.extend((decl.start, decl.end, b"") for decl in others)
    for start, end, text in sorted(edits, reverse=True):
        data = splice(data, start, end, text) if text else cut(data, start, end)
    return data


def _existing(decls: list[PyDecl], scope: str, body: PyBody) -> tuple[int, int] | None:
    """The span of the first run of a name the body declares that ``scope`` has."""
    for name in body.names:
        runs = _groups(decls, f"{scope}.{name}" if scope else name)
        if runs:
            return runs[0][0].start, runs[0][-1].end
    return None


def _value_body(run: list[PyDecl], body: str) -> str | None:
    """For a MODIFY of one assignment by a bare expression: the assignment with that value."""
    node = run[0].node
    if len(run) != 1 or len(run[0].names) != 1:
        return None
    name = run[0].names[0].rpartition(".")[2]
    if isinstance(node, ast.AnnAssign):
        return f"{name}: {ast.unparse(node.annotation)} = {body.strip()}"
    return f"{name} = {body.strip()}" if isinstance(node, ast.Assign) else None


def _edge(data: bytes, tree: ast.Module, lines: Lines, target: str, body: str) -> bytes:
    decls = declarations(tree, lines)
    parsed = read_body(body, b"")
    span = _existing(decls, "", parsed)
    if span is not None:
        return _place(data, decls, "", span, parsed)
    if target == "END":
        return append_text(data, parsed.text, 1 if parsed.imports_only else 2)
    end, imports = header_end(tree, lines)
    blank = (0 if imports else 1) if parsed.imports_only else 2
    return insert_after(data, end, parsed.text, blank)[0]


def _nested(body: list[ast.stmt], key: str, scope: str = "", guarded: bool = False) -> list[int]:
    """The lines where ``key`` is defined inside an ``if``/``try``/``with`` block of a
    module or class body (version checks, optional imports): where declaration edits do
    not reach."""
    found = []
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            name = f"{scope}.{node.name}" if scope else node.name
            if guarded and name == key:
                found.append(node.lineno)
            if isinstance(node, ast.ClassDef):
                found += _nested(node.body, key, name, guarded)
        elif isinstance(node, ast.If | ast.Try | ast.With):
            inner = [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            inner += [s for handler in getattr(node, "handlers", []) for s in handler.body]
            found += _nested(inner, key, scope, guarded=True)
    return found


def _decl_op(
    data: bytes, tree: ast.Module, decls: list[PyDecl], *, op: str, key: str, body: str
) -> bytes:
    runs = _groups(decls, key)
    if not runs:
        guarded = _nested(tree.body, key)
        if guarded:
            lines = ", ".join(map(str, guarded))
            raise EditError(
                f"{key} is defined inside an if/try/with block (line {lines}), where "
                "declaration edits do not reach; use REPLACE with find"
            )
        raise not_found(key, [name for decl in decls for name in decl.names])
    if len(runs) > 1 and op in ("MODIFY", "DELETE"):
        where = ", ".join(str(run[0].line) for run in runs)
        raise EditError(
            f"{key} is defined {len(runs)} times apart in its scope (lines {where}), so the "
            "target is ambiguous; use REPLACE with find, or WRITE"
        )
    run = runs[0]
    span = (run[0].start, run[-1].end)
    scope, indent = run[0].scope, run[0].indent
    if op == "DELETE":
        shared = [name for decl in run for name in decl.names if name != key]
        if shared:
            raise EditError(
                f"{key} is assigned in one statement with {', '.join(shared)}; MODIFY that "
                "statement instead"
            )
        return cut(data, *span)
    parsed = read_body(body, indent)
    if op == "MODIFY":
        value = _value_body(run, body) if parsed.expression and run[0].is_assignment else None
        if value is not None:
            return _place(data, decls, scope, (run[0].code, span[1]), read_body(value, indent))
        return _place(data, decls, scope, span, parsed)
    existing = _existing(decls, scope, parsed)
    if existing is not None:
        return _place(data, decls, scope, existing, parsed)
    if op == "ADD_BEFORE":
        return splice(data, span[0], span[0], parsed.text + b"\n" * (_blank(scope) + 1))
    return insert_after(data, span[1], parsed.text, _blank(scope))[0]


def edit_python(source: str | None, op: str, target: str, body: str, path: str) -> str:
    """The text of the Python file ``path`` after ``op`` on ``target`` with ``body``.

    ``source`` is ``None`` when the file does not exist. Raises :class:`EditError`.
    """
    target = target.strip()
    if source is None:
        if op in ADD_OPS and target in EDGES:
            return _valid(read_body(body, b"").text)
        raise EditError("the file does not exist; create it with WRITE")
    if target in EDGES and op not in ADD_OPS:
        raise EditError(f"target {target} only supports ADD_BEFORE and ADD_AFTER")
    data = encode(source)
    crlf = b"\r\n" in data and data.count(b"\n") == data.count(b"\r\n")
    if crlf:
        data = data.replace(b"\r\n", b"\n")
    tree = read_module(data)
    lines = Lines(data)
    if target in EDGES:
        out = _edge(data, tree, lines, target, body)
    else:
        decls = declarations(tree, lines)
        key = target_key(target, path, {name for decl in decls for name in decl.names})
        out = _decl_op(data, tree, decls, op=op, key=key, body=body)
    text = _valid(out)
    return text.replace("\n", "\r\n") if crlf else text
