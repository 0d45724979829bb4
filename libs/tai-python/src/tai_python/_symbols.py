"""``py-src`` resolution: the source of a module, class, function or method by name.

A request names a module (``pkg.mod``), a declaration in one (``pkg.mod.Class.method``),
or a declaration by its own name (``Class.method``, ``func``) when exactly one module of
the project declares it. The longest module name that prefixes the request wins; the rest
is a path of class and function names in that module, found in a fresh parse of the
snapshot's bytes (the tree as the model saw it, not as this round's changes left it). The
source runs from the first decorator (or the comment lines directly above) to the last line
of the body. A name that resolves to nothing answers with the closest names.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Iterator
from pathlib import Path

from tai_python._project import Load, Module
from tai_python._summary import decoded

EMPTY_HINT = (
    "py-src block is empty: write one name per line — a module (pkg.mod), a class or "
    "function (pkg.mod.Name, or Name when one module declares it) or a method "
    "(pkg.mod.Class.method).\n"
)


def _nodes(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for node in body:
        if isinstance(node, ast.If | ast.Try):
            inner = node.body + node.orelse
            if isinstance(node, ast.Try):
                inner += [s for h in node.handlers for s in h.body] + node.finalbody
            yield from _nodes(inner)
        else:
            yield node


def _named(node: ast.stmt) -> str | None:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        return target.id if isinstance(target, ast.Name) else None
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id
    return None


def _find(body: list[ast.stmt], path: list[str]) -> list[ast.stmt]:
    """The nodes ``path`` names (several for overloads and property setters)."""
    found = [node for node in _nodes(body) if _named(node) == path[0]]
    if len(path) == 1:
        return found
    return [
        hit for node in found if isinstance(node, ast.ClassDef | ast.FunctionDef)
        for hit in _find(node.body, path[1:])
    ]  # fmt: skip


def _start(node: ast.stmt, lines: list[str]) -> int:
    """The first line (1-based) of ``node`` with its decorators and the comment lines
    directly above it."""
    decorators = getattr(node, "decorator_list", [])
    first = min([node.lineno, *(d.lineno for d in decorators)])
    while first > 1 and lines[first - 2].lstrip().startswith("#"):
        first -= 1
    return first


def _source(loaded: Load, module: Module, path: list[str]) -> str | None:
    data = loaded.files.get(module.file)
    if data is None:
        return None
    try:
        text = decoded(data)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        text = data.decode("utf-8", "replace")
    shown = loaded.shown(module.file)
    if not path:
        return f"# {shown} (module {module.name})\n{text}"
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    lines = text.splitlines(keepends=True)
    pieces = []
    for node in _find(tree.body, path):
        start = _start(node, lines)
        end = node.end_lineno or node.lineno
        pieces.append(f"# {shown}:{start}-{end}\n{''.join(lines[start - 1 : end])}")
    return "\n".join(pieces) or None


def _by_path(loaded: Load, request: str) -> str:
    """``request`` with a leading file path made a module name: ``src/pkg/mod.py`` and
    pytest's node ids (``tests/test_x.py::TestY::test_z``) name what they name."""
    path, _, rest = request.partition("::")
    if not path.endswith((".py", ".pyi")):
        return request
    wanted = Path(loaded.cwd, path).resolve()
    module = next((m for m in loaded.modules.values() if Path(m.file).resolve() == wanted), None)
    if module is None:
        return request
    return ".".join([module.name, *(part for part in rest.split("::") if part)])


def _split(loaded: Load, request: str) -> list[tuple[Module, list[str]]]:
    """The (module, rest) pairs a request may mean, best first."""
    parts = _by_path(loaded, request).split(".")
    for end in range(len(parts), 0, -1):
        module = loaded.modules.get(".".join(parts[:end]))
        if module is not None:
            return [(module, parts[end:])]
    return [(m, parts) for m in loaded.modules.values() if _declares(m, parts[0])]


def _declares(module: Module, name: str) -> bool:
    return any(d["name"] == name for d in module.summary.get("decls", ()))


def _closest(loaded: Load, request: str) -> list[str]:
    names = list(loaded.modules)
    for module in loaded.modules.values():
        names += [f"{module.name}.{d['name']}" for d in module.summary.get("decls", ())]
        names += [
            f"{module.name}.{d['name']}.{c['name']}"
            for d in module.summary.get("decls", ()) for c in d.get("children", ())
        ]  # fmt: skip
    suffix = {name.rsplit(".", 1)[-1]: name for name in names}
    close = difflib.get_close_matches(request, names, n=5, cutoff=0.6)
    close += [suffix[n] for n in difflib.get_close_matches(request.rsplit(".", 1)[-1], list(
        suffix), n=3, cutoff=0.7)]  # fmt: skip
    return list(dict.fromkeys(close))[:5]


def source_of(loaded: Load, request: str) -> str:
    """The answer to one line of a ``py-src`` block."""
    candidates = _split(loaded, request)
    texts = [text for module, rest in candidates if (text := _source(loaded, module, rest))]
    if len(texts) == 1:
        return texts[0]
    if len(texts) > 1:
        where = ", ".join(f"{m.name}.{'.'.join(rest)}" for m, rest in candidates)
        return f"{request}: ambiguous, declared in several modules: {where}; name the module\n"
    close = _closest(loaded, request)
    hint = f"; the closest names: {', '.join(close)}" if close else ""
    return f"{request}: not found in the project's modules{hint}\n"


def requested_source(loaded: Load | Exception, requests: list[str]) -> str:
    """The answer to a ``py-src`` block: each request's source, or why there is none."""
    if isinstance(loaded, Exception):
        return f"py-src could not load the project: {loaded}\n"
    return "\n".join(f"## {request}\n{source_of(loaded, request)}" for request in requests)
