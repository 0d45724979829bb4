"""Python code read with :mod:`ast`: the facts :mod:`tai_sandbox._code` judges.

Names are resolved through the code's imports (``import subprocess as sp``, ``from shutil
import rmtree``), so a call is known by its qualified name; arguments that build a path
from literals (``os.path.expanduser("~")``, ``Path.home() / "x"``, ``os.path.join``,
f-strings, ``+``) are evaluated, their run-time parts marked
:data:`~tai_sandbox._words.DYNAMIC`.
"""

from __future__ import annotations

import ast
import posixpath

from tai_sandbox._tokens import Call, Facts, Value
from tai_sandbox._words import DYNAMIC

_PATH_TYPES = frozenset({"pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "Path"})


class _Reader:
    def __init__(self, tree: ast.AST, home: str, cwd: str) -> None:
        self.home, self.cwd = home, cwd
        self.aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    self.aliases[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
            elif isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def name(self, node: ast.AST) -> str | None:
        """The qualified name of ``node`` (``sp.run`` -> ``subprocess.run``)."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            owner = self.name(node.value)
            return f"{owner}.{node.attr}" if owner else None
        return None

    def value(self, node: ast.AST) -> Value:
        """The value of an argument, when built from literals."""
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.value(item) for item in node.elts]
            return tuple(item if isinstance(item, str) else DYNAMIC for item in items)
        if isinstance(node, ast.JoinedStr):
            return "".join(
                part.value if isinstance(part, ast.Constant) else DYNAMIC for part in node.values
            )
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Div)):
            left, right = self.text(node.left), self.text(node.right)
            return left + right if isinstance(node.op, ast.Add) else posixpath.join(left, right)
        if isinstance(node, ast.Call):
            return self._call_value(node)
        if isinstance(node, ast.Subscript) and self.name(node.value) == "os.environ":
            return self.home if self.value(node.slice) == "HOME" else DYNAMIC
        return None

    def text(self, node: ast.AST) -> str:
        value = self.value(node)
        return value if isinstance(value, str) else DYNAMIC

    def _call_value(self, node: ast.Call) -> Value:
        name = self.name(node.func) or ""
        args = [self.text(arg) for arg in node.args]
        if name in _PATH_TYPES:
            return posixpath.join(*args) if args else "."
        if name in ("os.path.join", "posixpath.join") and args:
            return posixpath.join(*args)
        if name in ("os.path.expanduser", "os.path.abspath", "os.path.realpath") and args:
            return self.home + args[0][1:] if args[0][:1] == "~" else args[0]
        if name.endswith(".home") or (name == "os.getenv" and args == ["HOME"]):
            return self.home
        if name in ("os.getcwd", "pathlib.Path.cwd", "Path.cwd"):
            return self.cwd
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("expanduser", "resolve"):
            inner = self.text(node.func.value)
            return self.home + inner[1:] if inner[:1] == "~" else inner
        return None

    def call(self, node: ast.Call) -> Call:
        args = tuple(self.value(arg) for arg in node.args)
        mode = next((kw.value for kw in node.keywords if kw.arg == "mode"), None)
        if mode is not None:
            args += (self.value(mode),)
        name = self.name(node.func)
        receiver = None
        if name is None and isinstance(node.func, ast.Attribute):
            receiver = self.text(node.func.value)
            name = f"path.{node.func.attr}"
            args = (receiver, *args) if node.func.attr == "open" else args
        return Call(name or "", args, receiver)


def _forks_in_loop(tree: ast.AST, reader: _Reader) -> bool:
    for loop in ast.walk(tree):
        if isinstance(loop, (ast.While, ast.For)):
            for node in ast.walk(loop):
                if isinstance(node, ast.Call) and (reader.name(node.func) or "").endswith("fork"):
                    return True
    return False


def python_facts(code: str, home: str, cwd: str) -> Facts | None:
    """The facts of Python ``code``, or ``None`` when it does not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    reader = _Reader(tree, home, cwd)
    facts = Facts(forks_in_loop=_forks_in_loop(tree, reader))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            facts.strings.append(node.value)
        elif isinstance(node, (ast.List, ast.Tuple)):
            value = reader.value(node)
            if isinstance(value, tuple) and value and DYNAMIC not in "".join(value):
                facts.argvs.append(value)
        elif isinstance(node, ast.Call):
            facts.calls.append(reader.call(node))
    return facts
