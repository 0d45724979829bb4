"""A module's summary: what its outline is rendered from, read by Python's own parser.

The summary is plain data (dicts, lists and strings), so it can be kept in the JSON cache
of :mod:`._cache` and rendered at any level without parsing again (:mod:`._outline`). It
holds the module docstring, ``__all__``, the module-level imports as written, the
declarations — classes with their bases and
decorators, functions and methods with their full signatures, module-level and class-level
assignments — each with its docstring and line, the imports as written, the test names
(pytest's conventions) and the full source of the theory constants.

Why :mod:`ast`: it is the interpreter's own parser, so it reads exactly the language (no
grammar of our own to drift), it is in the standard library (nothing to install), it
never imports or runs the module (no side effects, no dependencies of the project needed),
and ``ast.unparse`` gives back signatures and bases in canonical form. Its limit is the
grammar of the interpreter tai runs on: a module using newer syntax does not parse, and is
then named with the parser's error instead of outlined (the model can still fetch it with
``ingest``). griffe would give richer docstrings but imports nothing less heavy than this
and adds a dependency; tree-sitter-python would tolerate errors but loses ``unparse``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import Any

#: The version of the summary's shape: part of the cache key (:mod:`._cache`).
VERSION = 2
#: Values of assignments longer than this are shown cut (theory constants are whole).
VALUE_LIMIT = 120
_THEORY = re.compile(r"(?i)^_*theory")

Summary = dict[str, Any]
Decl = dict[str, Any]


def _docstring(node: ast.AST) -> str | None:
    try:
        return ast.get_docstring(node, clean=True)  # type: ignore[arg-type]
    except TypeError:
        return None


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    keyword = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    params = f"[{', '.join(ast.unparse(p) for p in node.type_params)}]" if getattr(
        node, "type_params", None
    ) else ""  # fmt: skip
    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    return f"{keyword} {node.name}{params}({ast.unparse(node.args)}){returns}:"


def _class_line(node: ast.ClassDef) -> str:
    bases = [ast.unparse(b) for b in node.bases] + [ast.unparse(k) for k in node.keywords]
    return f"class {node.name}({', '.join(bases)}):" if bases else f"class {node.name}:"


def _value(node: ast.expr | None, whole: bool) -> str:
    if node is None:
        return ""
    text = ast.unparse(node)
    if not whole and len(text) > VALUE_LIMIT:
        return text[: VALUE_LIMIT - 3].rstrip() + " ..."
    return text


def _assignment(node: ast.Assign | ast.AnnAssign, source: str) -> list[Decl]:
    """The declarations of an assignment to plain names (others declare nothing)."""
    targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    if not names:
        return []
    theory = any(_THEORY.match(name) for name in names)
    if theory:
        text = ast.get_source_segment(source, node) or ast.unparse(node)
        return [{"kind": "var", "name": n, "sig": text, "line": node.lineno, "theory": True}
                for n in names]  # fmt: skip
    annotation = f": {ast.unparse(node.annotation)}" if isinstance(node, ast.AnnAssign) else ""
    value = _value(node.value, whole=False)
    return [
        {"kind": "var", "name": name, "line": node.lineno,
         "sig": f"{name}{annotation}" + (f" = {value}" if value else "")}
        for name in names
    ]  # fmt: skip


def _declarations(body: list[ast.stmt], source: str) -> list[Decl]:
    """The declarations of a module's or a class's body; ``if``/``try`` blocks (version
    checks, optional imports) are looked into, function bodies are not."""
    found: list[Decl] = []
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append({
                "kind": "def", "name": node.name, "sig": _signature(node),
                "decorators": [f"@{ast.unparse(d)}" for d in node.decorator_list],
                "doc": _docstring(node), "line": node.lineno,
            })  # fmt: skip
        elif isinstance(node, ast.ClassDef):
            found.append({
                "kind": "class", "name": node.name, "sig": _class_line(node),
                "decorators": [f"@{ast.unparse(d)}" for d in node.decorator_list],
                "doc": _docstring(node), "line": node.lineno,
                "children": _declarations(node.body, source),
            })  # fmt: skip
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            found += _assignment(node, source)
        elif isinstance(node, ast.If):
            found += _declarations(node.body + node.orelse, source)
        elif isinstance(node, ast.Try):
            handlers = [s for h in node.handlers for s in h.body]
            found += _declarations(node.body + handlers + node.orelse + node.finalbody, source)
    return found


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement in ``body`` and in the bodies nested in it (expressions are not
    looked into: an import is a statement, and skipping the expressions is most of the
    cost of a walk)."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody"):
            nested = getattr(node, field, None)
            if isinstance(nested, list):
                yield from _statements(nested)
        for inner in getattr(node, "handlers", ()) or getattr(node, "cases", ()):
            yield from _statements(inner.body)


def _imports(tree: ast.Module) -> list[list[Any]]:
    """Every import of the module (function bodies too: a lazy import is still a
    dependency), as ``[level, module, [names]]``; ``import a.b`` is ``[0, "a.b", []]``."""
    found: list[list[Any]] = []
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            found += [[0, alias.name, []] for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append([node.level, node.module or "", [a.name for a in node.names]])
    return found


def _import_lines(body: list[ast.stmt]) -> list[str]:
    """The module-level import statements as written (``if``/``try`` blocks looked into):
    what a name in a signature refers to (``te`` for ``typing_extensions``), and in a
    package's ``__init__`` its public API (``from .core import Command as Command``)."""
    found = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            if not (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
                found.append(ast.unparse(node))
        elif isinstance(node, ast.If):
            found += _import_lines(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            found += _import_lines(node.body + [s for h in node.handlers for s in h.body])
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


def _all(tree: ast.Module) -> str | None:
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign | ast.AugAssign) else []
        )  # fmt: skip
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return ast.unparse(node)
    return None


def decoded(data: bytes) -> str:
    """A module's text in the encoding its coding declaration names (UTF-8 without one),
    as Python reads it; raises ``SyntaxError``, ``UnicodeDecodeError`` or ``LookupError``."""
    import io
    import tokenize

    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


def summarize(data: bytes, filename: str = "<module>") -> Summary:
    """The summary of a module's source; a module that does not parse gets ``error``
    (``LINE: message``) and nothing else."""
    try:
        source = decoded(data)
        tree = ast.parse(source, filename=filename)
    except SyntaxError as error:
        return {"error": f"line {error.lineno}: {error.msg}"}
    except (UnicodeDecodeError, LookupError, ValueError) as error:
        return {"error": f"cannot be read as Python source: {error}"}
    decls = _declarations(tree.body, source)
    decls = [d for d in decls if d["name"] != "__all__"]
    return {
        "doc": _docstring(tree),
        "all": _all(tree),
        "decls": decls,
        "imports": _imports(tree),
        "import_lines": _import_lines(tree.body),
        "tests": _tests(decls),
    }
