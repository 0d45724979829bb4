"""Loading a Python project: its root, its modules, and the snapshot of one load.

The root is the nearest directory at or above the working directory with a
``pyproject.toml``, ``setup.cfg`` or ``setup.py`` (``-py`` without one: the working
directory). Its files are walked with tai-text's walker, so Git's ignore rules hold, tai's
own directories are skipped and a link is followed once; virtual environments, caches and
build output are pruned by name (:data:`PRUNED`) even where no ``.gitignore`` says so.

A module's dotted name is its path relative to ``src/`` when it lies there (the src
layout), else relative to the root. The project's *packages* are the directories with an
``__init__.py`` directly under a source root; test modules follow pytest's file names
(``test_*.py``, ``*_test.py``, ``conftest.py``).

Every Python file is read once, into :attr:`Load.files` — the snapshot the parts are
rendered from and ``py-src`` answers from — after the ``tai_secret_file`` hook judged its
name; its content is judged too, and a file withheld as a secret never enters the snapshot
(it is recorded in :attr:`Load.withheld` with the reason). The last load of each working
directory is kept for the process (:func:`last_load`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from tai_core.context import SecretCheck, SelectionError, judged, names_only
from tai_python import project_root
from tai_python._cache import summaries_of
from tai_python._imports import Installed, resolve_imports
from tai_python._summary import Summary
from tai_text._walk import Ignores, Walker, relative_path, shown_path

#: Directories never walked (gitignore syntax): environments, caches, build output.
PRUNED = (
    ".*/", "__pycache__/", "venv/", "node_modules/", "/build/", "/dist/", "*.egg-info/",
    "site-packages/",
)  # fmt: skip
_SUFFIXES = (".py", ".pyi")
_loads: dict[Path, Load] = {}
_lock = threading.Lock()


def is_test_file(name: str) -> bool:
    """Whether pytest collects a file of this name by default (or it is a conftest)."""
    stem = name.removesuffix(".py")
    return name.endswith(".py") and (
        stem.startswith("test_") or stem.endswith("_test") or stem == "conftest"
    )


@attrs.frozen
class Module:
    """One module: its dotted name, file (absolute), directory, whether it is a package's
    ``__init__`` or a test module, the project modules it imports and the top-level names of
    the other imports it makes (standard library left out)."""

    name: str
    file: str
    directory: str
    package: bool
    test: bool
    imports: tuple[str, ...]
    external: tuple[str, ...]
    summary: Summary = attrs.field(eq=False, repr=False)

    @property
    def path(self) -> str:
        """The module's name: what the staging rules know it by."""
        return self.name


@attrs.frozen
class Load:
    """What one load found: modules by name, which are focus and context, the snapshot of
    their files, the project's other files by directory, and what was withheld."""

    cwd: Path
    root: Path
    modules: Mapping[str, Module]
    focus: tuple[str, ...]
    context: tuple[str, ...]
    files: Mapping[str, bytes]
    other_files: Mapping[str, tuple[str, ...]]
    withheld: Mapping[str, str]
    installed: Installed

    def shown(self, path: str | Path) -> str:
        """How a path is named to the model: relative to the working directory (absolute
        outside it), as the any-text context names files."""
        return shown_path(Path(path), self.cwd)


def _source_roots(root: Path) -> tuple[Path, ...]:
    source = root / "src"
    return (source, root) if source.is_dir() else (root,)


def module_name(file: Path, roots: Sequence[Path]) -> str:
    """The dotted name of ``file`` under the first of ``roots`` that holds it."""
    for base in roots:
        relative = relative_path(file, base)
        if relative is not None:
            parts = relative.removesuffix(file.suffix).split("/")
            if parts[-1] == "__init__" and len(parts) > 1:
                parts.pop()
            return ".".join(parts)
    return file.stem


def _walk(root: Path, ignore: Sequence[str]) -> list[Path]:
    walker = Walker(root, Ignores(root, (*PRUNED, *ignore)))
    return [found.path for found in walker.expand(".")]


def _matches(module: Module, pattern: str, cwd: Path) -> bool:
    """Whether a ``-pkg`` pattern names ``module``: a dotted name (the module and, for a
    package, every module below it), or a file or directory path."""
    if module.name == pattern or module.name.startswith(pattern + "."):
        return True
    target = Path(os.path.normpath(cwd / pattern))
    return Path(module.file) == target or Path(module.file).is_relative_to(target)


def _selected(
    modules: Mapping[str, Module], patterns: Sequence[str], cwd: Path, what: str
) -> tuple[str, ...]:
    chosen = []
    for pattern in patterns:
        found = [name for name, module in modules.items() if _matches(module, pattern, cwd)]
        if not found:
            raise SelectionError(f"{what} pattern {pattern!r} names no module of the project")
        chosen += found
    return tuple(sorted(set(chosen)))


def default_focus(modules: Mapping[str, Module], root: Path, cwd: Path) -> tuple[str, ...]:
    """The project's own packages and its tests (below ``cwd`` when it is not the root);
    every module when the project has no package."""
    roots = _source_roots(root)
    packages = {
        module.name.split(".")[0]
        for module in modules.values()
        if module.package and Path(module.directory).parent in roots
    }
    own = [
        name for name, module in modules.items()
        if (name.split(".")[0] in packages or module.test or not packages)
        and relative_path(Path(module.file), cwd) is not None
    ]  # fmt: skip
    return tuple(sorted(own))


class _Reader:
    """Reads and judges the project's files (see the module docstring)."""

    def __init__(self, cwd: Path, secret: SecretCheck) -> None:
        self.cwd, self.secret = cwd, secret
        self.files: dict[str, bytes] = {}
        self.withheld: dict[str, str] = {}
        self._real_directories: dict[Path, Path] = {}

    def _real(self, path: Path) -> Path:
        """``path`` with every link resolved (``Path.resolve``), each directory resolved
        once: a walk reads hundreds of files from a few directories."""
        directory = self._real_directories.get(path.parent)
        if directory is None:
            directory = self._real_directories[path.parent] = path.parent.resolve()
        found = directory / path.name
        return found.resolve() if found.is_symlink() else found

    def shown(self, path: Path) -> str:
        """``path`` relative to the working directory (``..`` where it lies outside)."""
        return relative_path(path, self.cwd) or os.path.relpath(path, self.cwd)

    def by_name(self, path: Path, shown: str) -> str | None:
        """Why ``path`` (``shown`` relative to the working directory) is withheld by its
        name or a link's target's, recorded."""
        reason = judged(self.secret, shown, self.shown(self._real(path)))
        if reason is not None:
            self.withheld[str(path)] = reason
        return reason

    def read(self, path: Path) -> bytes | None:
        shown = self.shown(path)
        if self.by_name(path, shown) is not None:
            return None
        try:
            data = path.read_bytes()
        except OSError:
            return None
        reason = self.secret(shown, data)
        if reason is not None:
            self.withheld[str(path)] = reason
            return None
        self.files[str(path)] = data
        return data


def load(
    cwd: Path,
    *,
    focus: Sequence[str] = (),
    context: Sequence[str] = (),
    config: Mapping[str, Any] | None = None,
    secret: SecretCheck | None = None,
    ignore: Sequence[str] = (),
) -> Load:
    """Load the project around ``cwd``: every module parsed (or from the cache), the focus
    and context patterns resolved; kept as the directory's last load. Raises
    :class:`SelectionError` when a pattern names nothing."""
    cwd = cwd.resolve()
    root = project_root(cwd) or cwd
    reader = _Reader(cwd, secret or names_only(config or {}))
    roots = _source_roots(root)
    sources: dict[str, tuple[Path, bytes]] = {}
    others: dict[str, list[str]] = {}
    for path in _walk(root, ignore):
        if path.suffix not in _SUFFIXES:
            if reader.by_name(path, reader.shown(path)) is None:  # named, never read
                others.setdefault(str(path.parent), []).append(str(path))
            continue
        data = reader.read(path)
        if data is None:
            continue
        name = module_name(path, roots)
        kept = sources.get(name)
        if kept is None or path.suffix == ".py":
            sources[name] = (path, data)
        if kept is not None:  # a stub beside its module: the module outlined, the stub listed
            stub = path if path.suffix == ".pyi" else kept[0]
            others.setdefault(str(stub.parent), []).append(str(stub))
    summaries = summaries_of(root, [(data, str(path)) for path, data in sources.values()])
    raw = {
        name: (path, summary)
        for (name, (path, _)), summary in zip(sources.items(), summaries, strict=True)
    }
    names = frozenset(raw)
    modules = {}
    for name, (path, summary) in raw.items():
        package = path.stem == "__init__"
        imports, external = resolve_imports(name, package, summary.get("imports", ()), names)
        modules[name] = Module(
            name=name, file=str(path), directory=str(path.parent), package=package,
            test=is_test_file(path.name), imports=imports, external=external, summary=summary,
        )  # fmt: skip
    chosen = _selected(modules, focus, cwd, "focus") if focus else default_focus(
        modules, root, cwd
    )  # fmt: skip
    loaded = Load(
        cwd=cwd, root=root, modules=modules, focus=chosen,
        context=tuple(n for n in _selected(modules, context, cwd, "context") if n not in chosen),
        files=reader.files, other_files={d: tuple(f) for d, f in others.items()},
        withheld=reader.withheld, installed=Installed.of(root),
    )  # fmt: skip
    with _lock:
        _loads[cwd] = loaded
    return loaded


def last_load(cwd: Path) -> Load | None:
    """The last load of ``cwd`` in this process."""
    with _lock:
        return _loads.get(cwd.resolve())
