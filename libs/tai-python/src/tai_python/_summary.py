"""A module's summary: what its outline is rendered from, read by tree-sitter-python.

The summary is plain data (dicts, lists and strings), so it can be kept in the JSON cache
of :mod:`._cache` and rendered at any level without parsing again (:mod:`._outline`). It
holds the module docstring, ``__all__``, the module-level imports, the declarations —
classes with their bases and decorators, functions and methods with their full
signatures, module-level and class-level assignments — each with its docstring and line,
every import of the module (function bodies too), the test names (pytest's conventions)
and the full source of the theory constants. Signatures, bases, decorators, annotations
and values are the module's own text, each on one line (:func:`._syntax.flat`); the
import lines are written in one canonical form.

Why tree-sitter-python: a cold load of a project parses every module, and the parse is
most of its time. tree-sitter builds its tree in C without a Python object per node, and
parses about twice as fast as :func:`ast.parse`, which builds the whole tree as Python
objects; the summary then visits only the statements of module and class bodies (an
import inside a function is found from the ``import`` keywords in the bytes, each looked
up in the tree), never a function body. Like :mod:`ast` it never imports or runs the
module. It reads the language of its grammar, not of the interpreter tai runs on: a
module using newer syntax is still outlined. A module where tree-sitter finds an error
is parsed by :func:`ast.parse` as well, which says whether Python refuses it, and why:
such a module is named with that error instead of outlined (the model can still fetch it
with ``ingest``); one Python accepts is outlined from what tree-sitter recognised, the
declarations its error nodes hold included (a line indented less inside brackets puts
whole modules there). Python is asked only then: a module tree-sitter reads without error
but Python refuses (a Python 2 ``print`` statement) is outlined, not named.
griffe would give richer docstrings but is heavier still, and adds a dependency.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from tai_python._syntax import code, flat, parse, string_value, text

if TYPE_CHECKING:
    from tree_sitter import Node

#: The version of the summary's shape and words: part of the cache key (:mod:`._cache`).
VERSION = 4
#: Values of assignments longer than this are shown cut (theory constants are whole).
VALUE_LIMIT = 120
_THEORY = re.compile(r"(?i)^_*theory")
_IMPORT = re.compile(rb"\bimport\b")
_IMPORTS = frozenset({"import_statement", "import_from_statement", "future_import_statement"})
_BRANCHES = frozenset({
    "elif_clause", "else_clause", "except_clause", "except_group_clause", "finally_clause",
})  # fmt: skip

Summary = dict[str, Any]
Decl = dict[str, Any]
#: An import: its level, its module and the names it imports with what they are bound to.
_Import = tuple[int, str, list[tuple[str, str | None]]]


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _first(body: Node) -> Node | None:
    """The first statement of ``body`` (not every statement: a function body is long)."""
    for index in range(body.named_child_count):
        child = body.named_child(index)
        if child is not None and child.type != "comment":
            return child
    return None


def _docstring(body: Node | None) -> str | None:
    """The docstring of a module or a block: its first statement, when a string (cleaned
    as :func:`inspect.cleandoc` does; a docstring of one line without tabs needs only its
    leading space taken off)."""
    first = _first(body) if body is not None else None
    if first is None or first.type != "expression_statement":
        return None
    value = code(first)
    found = string_value(value[0]) if len(value) == 1 else None
    if found is None or ("\n" not in found and "\t" not in found):
        return found and found.lstrip()
    import inspect

    return inspect.cleandoc(found)


def _blocks(node: Node) -> Iterator[Node]:
    """The statements of an ``if``'s branches, or of a ``try``'s body, handlers, ``else``
    and ``finally``."""
    for child in node.named_children:
        if child.type == "block":
            yield from code(child)
        elif child.type in _BRANCHES:
            for block in child.named_children:
                if block.type == "block":
                    yield from code(block)


def _signature(node: Node) -> str:
    keyword = "async def" if node.children[0].type == "async" else "def"
    parts = [node.child_by_field_name(field) for field in ("name", "type_parameters")]
    written = "".join(flat(part) for part in parts if part is not None)
    written += flat(node.child_by_field_name("parameters"))  # type: ignore[arg-type]
    returns = node.child_by_field_name("return_type")
    return f"{keyword} {written}" + (f" -> {flat(returns)}" if returns else "") + ":"


def _class_line(node: Node) -> str:
    written = "".join(
        flat(part)
        for field in ("name", "type_parameters", "superclasses")
        if (part := node.child_by_field_name(field)) is not None
        and (field != "superclasses" or code(part))
    )
    return f"class {written}:"


def _definition(node: Node, decorators: list[str]) -> Decl:
    name = text(node.child_by_field_name("name"))  # type: ignore[arg-type]
    body = node.child_by_field_name("body")
    decl = {"kind": "def", "name": name, "decorators": decorators, "doc": _docstring(body),
            "line": _line(node)}  # fmt: skip
    if node.type == "class_definition":
        decl.update(kind="class", sig=_class_line(node))
        decl["children"] = _declarations(code(body) if body is not None else [])
    else:
        decl["sig"] = _signature(node)
    return decl


def _cut(node: Node) -> str:
    """``node`` on one line as written, cut to :data:`VALUE_LIMIT` characters."""
    shown = flat(node, VALUE_LIMIT)
    if len(shown) > VALUE_LIMIT:
        shown = shown[: VALUE_LIMIT - 3].rstrip() + " ..."
    return shown


def _assignment(statement: Node, node: Node) -> list[Decl]:
    """The declarations of an assignment to plain names (others declare nothing)."""
    names, annotation, value = [], None, node
    while value is not None and value.type == "assignment":
        left = value.child_by_field_name("left")
        if left is not None and left.type == "identifier":
            names.append(text(left))
        annotation = value.child_by_field_name("type")
        value = value.child_by_field_name("right")
    if not names:
        return []
    line = _line(statement)
    if any(_THEORY.match(name) for name in names):
        whole = text(statement)
        return [{"kind": "var", "name": n, "sig": whole, "line": line, "theory": True}
                for n in names]  # fmt: skip
    typed = f": {flat(annotation)}" if annotation is not None else ""
    shown = _cut(value) if value is not None else ""
    return [
        {"kind": "var", "name": name, "line": line,
         "sig": f"{name}{typed}" + (f" = {shown}" if shown else "")}
        for name in names
    ]  # fmt: skip


def _type_alias(node: Node) -> list[Decl]:
    """The declaration of ``type NAME[PARAMS] = VALUE`` (Python 3.12), shown as written."""
    left = node.child_by_field_name("left")
    while left is not None and left.type != "identifier":
        left = left.named_children[0] if left.named_children else None
    if left is None:
        return []
    return [{"kind": "var", "name": text(left), "line": _line(node), "sig": _cut(node)}]


def _declarations(body: Iterable[Node]) -> list[Decl]:
    """The declarations of a module's or a class's body; ``if``/``try`` blocks (version
    checks, optional imports) are looked into, function bodies are not."""
    found: list[Decl] = []
    for node in body:
        kind = node.type
        if kind == "decorated_definition":
            definition = node.child_by_field_name("definition")
            decorators = [
                f"@{flat(code(d)[0])}" for d in node.named_children
                if d.type == "decorator" and code(d)
            ]  # fmt: skip
            if definition is not None:
                found.append(_definition(definition, decorators))
        elif kind in ("function_definition", "class_definition"):
            found.append(_definition(node, []))
        elif kind == "expression_statement":
            inner = code(node)
            if inner and inner[0].type == "assignment":
                found += _assignment(node, inner[0])
        elif kind == "type_alias_statement":
            found += _type_alias(node)
        elif kind in ("if_statement", "try_statement"):
            found += _declarations(_blocks(node))
        elif kind == "ERROR":  # what tree-sitter recognised around an error
            found += _declarations(code(node))
    return found


def _dotted(node: Node | None) -> str:
    return "".join(text(node).split()) if node is not None else ""


def _import(node: Node) -> _Import:
    """What an import statement imports (``import a.b as c`` is ``(0, "a.b", [])``)."""
    names: list[tuple[str, str | None]] = []
    for name in node.children_by_field_name("name"):
        alias = name.child_by_field_name("alias") if name.type == "aliased_import" else None
        target = name.child_by_field_name("name") if alias is not None else name
        names.append((_dotted(target), text(alias) if alias is not None else None))
    if node.type == "future_import_statement":
        return 0, "__future__", names
    if node.type == "import_statement":
        return 0, "", names
    module = node.child_by_field_name("module_name")
    if any(child.type == "wildcard_import" for child in node.named_children):
        names.append(("*", None))
    if module is not None and module.type == "relative_import":
        prefix = next((c for c in module.named_children if c.type == "import_prefix"), None)
        dotted = next((c for c in module.named_children if c.type == "dotted_name"), None)
        return text(prefix).count(".") if prefix else 0, _dotted(dotted), names
    return 0, _dotted(module), names


def _imports(source: bytes, root: Node) -> list[list[Any]]:
    """Every import of the module (function bodies too: a lazy import is still a
    dependency), as ``[level, module, [names]]``; ``import a.b`` is ``[0, "a.b", []]``."""
    found: list[list[Any]] = []
    for match in _IMPORT.finditer(source):
        keyword = root.descendant_for_byte_range(match.start(), match.end())
        statement = keyword.parent if keyword is not None and keyword.type == "import" else None
        if statement is None or statement.type not in _IMPORTS:
            continue
        level, module, names = _import(statement)
        if statement.type == "import_statement":
            found += [[0, name, []] for name, _ in names]
        else:
            found.append([level, module, [name for name, _ in names]])
    return found


def _import_line(node: Node) -> str:
    """An import statement in the form :func:`ast.unparse` gives it."""
    level, module, names = _import(node)
    aliases = ", ".join(f"{name} as {alias}" if alias else name for name, alias in names)
    if node.type == "import_statement":
        return f"import {aliases}"
    return f"from {'.' * level}{module} import {aliases}"


def _import_lines(body: Iterable[Node]) -> list[str]:
    """The module-level import statements (``if``/``try`` blocks looked into): what a name
    in a signature refers to (``te`` for ``typing_extensions``), and in a package's
    ``__init__`` its public API (``from .core import Command as Command``)."""
    found = []
    for node in body:
        if node.type in ("import_statement", "import_from_statement"):
            found.append(_import_line(node))
        elif node.type in ("if_statement", "try_statement"):
            found += _import_lines(_blocks(node))
        elif node.type == "ERROR":
            found += _import_lines(code(node))
    return list(dict.fromkeys(found))


def _tests(decls: list[Decl]) -> list[str]:
    """pytest's default collection: ``test*`` functions at module level, ``Test*``
    classes (without ``__init__``) and their ``test*`` methods, as ``Class.method``."""
    names = []
    for decl in decls:
        if decl["kind"] == "def" and decl["name"].startswith("test"):
            names.append(decl["name"])
        elif decl["kind"] == "class" and decl["name"].startswith("Test"):
            methods = decl.get("children", [])
            if any(m["name"] == "__init__" for m in methods):
                continue
            names += [
                f"{decl['name']}.{m['name']}"
                for m in methods if m["kind"] == "def" and m["name"].startswith("test")
            ]  # fmt: skip
    return names


def _all(body: list[Node]) -> str | None:
    for node in body:
        inner = code(node) if node.type == "expression_statement" else []
        while inner and inner[0].type in ("assignment", "augmented_assignment"):
            if text(inner[0].child_by_field_name("left")) == "__all__":  # type: ignore[arg-type]
                return flat(node)
            right = inner[0].child_by_field_name("right")
            inner = [right] if right is not None else []
    return None


def decoded(data: bytes) -> str:
    """A module's text in the encoding its coding declaration names (UTF-8 without one),
    as Python reads it; raises ``SyntaxError``, ``UnicodeDecodeError`` or ``LookupError``."""
    import io
    import tokenize

    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


def _located(error: SyntaxError) -> str:
    """``LINE: message`` of a syntax error; a refusal of the whole file (a NUL byte) has no
    line and is said as what it is."""
    if error.lineno is None:
        return f"cannot be read as Python source: {error.msg}"
    return f"line {error.lineno}: {error.msg}"


def _refused(source: str, filename: str) -> str | None:
    """Why Python refuses ``source`` (``None`` when it parses)."""
    import ast

    try:
        ast.parse(source, filename=filename)
    except SyntaxError as error:
        return _located(error)
    except ValueError as error:
        return f"cannot be read as Python source: {error}"
    return None


def summarize(data: bytes, filename: str = "<module>") -> Summary:
    """The summary of a module's source; a module that does not parse gets ``error``
    (``LINE: message``) and nothing else."""
    try:
        source = decoded(data)
        utf8 = source.replace("\r\n", "\n").replace("\r", "\n").encode()
    except SyntaxError as error:
        return {"error": _located(error)}
    except (UnicodeError, LookupError) as error:
        return {"error": f"cannot be read as Python source: {error}"}
    tree = parse(utf8)
    root = tree.root_node
    if (root.has_error or b"\0" in utf8) and (refused := _refused(source, filename)):
        return {"error": refused}
    try:
        return _summary(utf8, root)
    except RecursionError:  # tree-sitter nests deeper than Python's own parser allows
        return {"error": _refused(source, filename) or "nested too deeply to be outlined"}


def _summary(source: bytes, root: Node) -> Summary:
    body = code(root)
    decls = [d for d in _declarations(body) if d["name"] != "__all__"]
    return {
        "doc": _docstring(root),
        "all": _all(body),
        "decls": decls,
        "imports": _imports(source, root),
        "import_lines": _import_lines(body),
        "tests": _tests(decls),
    }
