"""Loading a Go project: ``go list``, the files it names, and the snapshot of one load.

One ``go list -e -json -deps [-test]`` call loads the focus and the context patterns
together (each package's ``Match`` says which pattern named it); test variants are folded
into their package (test files and test imports join it). Every file of the loaded
non-standard packages is read once, into :attr:`Load.files`: the snapshot the parts are
rendered from and ``go-src`` answers from. The last load of each working directory is
kept for the process (:func:`last_load`).

Secret files never enter the snapshot, so nothing rendered from it — file parts, theory
constants, ``go-src`` answers — can show them: every file is judged by its name (and a
link's target), and the files of the project's own modules by their content too (those of
the module cache are published code, and scanning every dependency would cost more than
the collection). A withheld file is recorded in :attr:`Load.withheld` with its reason.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from functools import partial
from pathlib import Path
from typing import Any

import attrs

from tai_core.context import ContextError, SecretCheck, SelectionError, names_only
from tai_go._docsession import Renderer
from tai_go._gocmd import (
    DocRequest,
    base_environment,
    environments,
    go_list,
    in_thread,
    plain_doc,
    renderer,
    request_docs,
)

#: Non-Go files bigger than this (embedded assets) are left out of a load.
EMBED_LIMIT = 64 * 1024
_loads: dict[Path, Load] = {}
_lock = threading.Lock()


@attrs.frozen
class Package:
    """One logical package: its base import path, files (absolute) and imports.

    ``other_files`` are the non-Go files: ``OtherFiles`` and embedded files, and for a
    focus package every other file of its directory (listed by name in its outline)."""

    path: str
    name: str
    dir: Path
    module: str
    module_dir: Path | None
    go_files: tuple[str, ...]
    test_files: tuple[str, ...]
    other_files: tuple[str, ...]
    imports: tuple[str, ...]
    standard: bool
    #: The embedded files among ``other_files`` (dropped when bigger than 64 KiB).
    embedded: tuple[str, ...] = ()
    #: Files of the package withheld as secrets (not in the snapshot; see the module).
    withheld: tuple[str, ...] = ()
    #: The version of the package's module when it comes from the module cache.
    version: str = ""


@attrs.frozen
class Load:
    """What one load found: packages by path, which are focus and context, the snapshot
    of their files' bytes, and the environments to run ``go doc`` in."""

    cwd: Path
    dir: Path
    packages: Mapping[str, Package]
    focus: tuple[str, ...]
    context: tuple[str, ...]
    files: Mapping[str, bytes]
    doc_env: Mapping[str, str] = attrs.field(repr=False)
    module_roots: tuple[Path, ...] = ()
    #: The modules of the workspace the load ran in (none outside workspace mode).
    workspace: tuple[Path, ...] = ()
    #: Files withheld as secrets (absolute path -> reason); none of them is in ``files``.
    withheld: Mapping[str, str] = attrs.field(factory=dict)
    #: Packages ``go list`` could not load completely (import path -> its first error);
    #: the load goes on with the rest (see :func:`load`).
    problems: Mapping[str, str] = attrs.field(factory=dict)
    #: The directories of the modules from the module cache -> ``module@version``.
    cached_modules: Mapping[Path, str] = attrs.field(factory=dict)

    def doc(self, flags: Sequence[str], path: str, helper: Renderer | None = None) -> str:
        """``go doc FLAGS PATH`` for a loaded package (see :meth:`request_docs`); raises
        :class:`ContextError` when it fails."""
        result = self.request_docs([(tuple(flags), path)], helper)[0].result()
        if isinstance(result, ContextError):
            raise result
        return result

    def request_docs(
        self, wanted: Sequence[tuple[tuple[str, ...], str]], helper: Renderer | None = None
    ) -> list[Future[str | ContextError]]:
        """``go doc FLAGS PATH`` for each ``(FLAGS, PATH)``, in order, as futures (a
        :class:`ContextError` where it fails); returns at once. A loaded package is
        documented from the snapshot (:meth:`doc_request`), cached by its files'
        content, the misses together in one helper process (``helper``, the
        collection's, or a fresh one; see :mod:`._gocmd`). A package with a Go file
        withheld as a secret gets a note instead, since its documentation (``-u`` above
        all) prints constants and variables with their values; a package outside the
        snapshot (the standard library, unless named) gets a plain ``go doc``."""
        results: list[Future[str | ContextError] | None] = [None] * len(wanted)
        requests: list[DocRequest] = []
        positions: list[int] = []
        for index, (flags, path) in enumerate(wanted):
            package = self.packages.get(path)
            withheld = package.withheld if package else ()
            secrets = [self.shown(f) for f in withheld if f.endswith(".go")]
            if secrets:
                note: Future[str | ContextError] = Future()
                note.set_result(
                    f"(documentation withheld: it would show what {', '.join(secrets)} holds)\n"
                )
                results[index] = note
            elif package is None or not all(f in self.files for f in package.go_files):
                results[index] = in_thread(partial(plain_doc, flags, path, self.dir, self.doc_env))
            else:
                requests.append(self.doc_request(flags, package))
                positions.append(index)
        found = request_docs(requests, self.dir, self.doc_env, helper) if requests else []
        for index, future in zip(positions, found, strict=True):
            results[index] = future
        return [future for future in results if future is not None]

    def doc_request(self, flags: Sequence[str], package: Package) -> DocRequest:
        """What documents a package of the snapshot: ``go doc FLAGS DIR``, ``DIR`` being
        ``./REL`` inside the working directory and absolute outside it (a directory
        spares go doc searching for an import path, most of its time, and names exactly
        the directory go list loaded)."""
        inside = package.dir == self.dir or self.dir in package.dir.parents
        relative = f"./{package.dir.relative_to(self.dir).as_posix()}" if inside else ""
        files = {name: self.files[name] for name in package.go_files}
        return DocRequest(tuple(flags), relative or str(package.dir), package.dir, files)

    def helper(self) -> Renderer:
        """A documentation helper session for this load (started on first use; the
        caller closes it)."""
        return renderer(self.dir, self.doc_env)

    def shown(self, file: str | Path) -> str:
        """How a file of this load is named to the model: relative to the working
        directory; a file of a module from the module cache as ``module@version/path``;
        anything else by its absolute path."""
        relative = os.path.relpath(file, self.cwd)
        if not relative.startswith(".."):
            return relative
        path = Path(file)
        for root, name in self.cached_modules.items():
            if path.is_relative_to(root):
                return f"{name}/{path.relative_to(root).as_posix()}"
        return str(file)


def last_load(cwd: Path) -> Load | None:
    """The last load made in this process for ``cwd``, if any."""
    with _lock:
        return _loads.get(cwd.resolve())


def _use_dirs(work: Path) -> list[Path]:
    text = re.sub(r"//[^\n]*", "", work.read_text(encoding="utf-8"))
    found = []
    for block, single in re.findall(r"\buse\s*(?:\(([^)]*)\)|(\S+))", text):
        for entry in block.split() if block else [single]:
            found.append((work.parent / entry.strip('"`')).resolve())
    return found


def workspace(cwd: Path, env: Mapping[str, str]) -> tuple[Path, list[Path]] | None:
    """The workspace root and its modules when workspace mode applies to a load in
    ``cwd``: ``GOWORK`` names the file or one is found upward, and ``cwd`` is its root or
    exactly one of its modules; ``GOWORK=off`` disables it."""
    setting = env.get("GOWORK", "")
    if setting == "off":
        return None
    work = Path(setting) if setting else None
    if work is None:
        work = next((d / "go.work" for d in (cwd, *cwd.parents) if (d / "go.work").is_file()), None)
    if work is None or not work.is_file():
        return None
    modules = _use_dirs(work)
    root = work.parent.resolve()
    if cwd == root or (cwd in modules and cwd != root):
        return root, modules
    return None


def _read(path: str) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except OSError:
        return None


def _text_file(data: bytes, embedded: bool) -> bool:
    return b"\0" not in data[:8192] and not (embedded and len(data) > EMBED_LIMIT)


def display(file: str | Path, cwd: Path) -> str:
    """How a file is named to the model: relative to ``cwd``, or absolute outside it."""
    relative = os.path.relpath(file, cwd)
    return str(file) if relative.startswith("..") else relative


class _Judge:
    """Withholds secret files: by name always, by content for ``scan`` packages."""

    def __init__(self, secret: SecretCheck, cwd: Path) -> None:
        self.secret = secret
        self.cwd = cwd
        self.withheld: dict[str, str] = {}

    def __call__(self, name: str, data: bytes | None) -> bool:
        """True (and the reason recorded) when ``name`` is withheld; ``data`` is ``None``
        to judge the name alone."""
        reason = self.secret(display(name, self.cwd), data)
        if reason is None and data is None and Path(name).is_symlink():
            reason = self.secret(display(Path(name).resolve(), self.cwd), None)
        if reason:
            self.withheld[name] = reason
        return bool(reason)


def _snapshot(package: Package, judge: _Judge, scan: bool, files: dict[str, bytes]) -> Package:
    """Read ``package``'s files into ``files``, leaving secrets out; the package with its
    kept other files and its withheld files."""
    withheld = []
    for name in (*package.go_files, *package.test_files):
        data = _read(name) or b""
        if judge(name, None) or (scan and judge(name, data)):
            withheld.append(name)
        else:
            files[name] = data
    kept = []
    for name in package.other_files:
        if judge(name, None):
            withheld.append(name)
            continue
        data = _read(name)
        if data is not None and _text_file(data, name in package.embedded):
            if scan and judge(name, data):
                withheld.append(name)
            else:
                files[name] = data
                kept.append(name)
    return attrs.evolve(package, other_files=tuple(kept), withheld=tuple(withheld))


def _dir_files(directory: Path) -> list[str]:
    """The non-Go files of a focus package's directory (not ``.``- or ``_``-prefixed)."""
    try:
        paths = sorted(directory.iterdir())
    except OSError:
        return []
    return [
        str(path) for path in paths
        if not path.name.startswith((".", "_")) and path.suffix != ".go" and path.is_file()
    ]  # fmt: skip


def _base_path(path: str) -> str:
    """The package a ``go list -test`` entry belongs to (``p [p.test]``, ``p.test`` -> ``p``)."""
    return path.split(" ", 1)[0].removesuffix(".test")


def _message(problem: Any) -> str:
    """A ``go list`` error on one line, with its position when the text lacks it."""
    where = problem.get("Pos") or ""
    message = " ".join(str(problem.get("Err", "")).split())
    return f"{where}: {message}" if where and where not in message else message


def _problems(raw: list[Any]) -> dict[str, str]:
    """The packages ``go list -e`` could not load completely, each with its first error.
    A package's own errors come first; an error an importer repeats in ``DepsErrors``
    stays with the package it belongs to, and one no package reports itself goes to the
    last package of its import stack (else to the importer)."""
    problems: dict[str, str] = {}
    for entry in raw:
        if entry.get("Error"):
            problems.setdefault(_base_path(entry.get("ImportPath", "")), _message(entry["Error"]))
    for entry in raw:
        for problem in entry.get("DepsErrors") or ():
            message = _message(problem)
            if message not in problems.values():
                stack = problem.get("ImportStack") or [entry.get("ImportPath", "")]
                problems.setdefault(_base_path(stack[-1]), message)
    return problems


def _entries(raw: list[Any], tests: bool) -> tuple[dict[str, Package], dict[str, list[str]]]:
    """Logical packages and the patterns each matched (packages ``go list`` found no
    directory for are left out: :func:`_problems` names them)."""
    packages: dict[str, Package] = {}
    matched: dict[str, list[str]] = {}
    for entry in raw:
        path = entry.get("ImportPath", "")
        if " " in path or entry.get("ForTest") or path.endswith(".test") or not entry.get("Dir"):
            continue
        directory = Path(entry["Dir"])
        module = entry.get("Module") or {}

        def files(*keys: str, directory: Path = directory, entry: Any = entry) -> tuple[str, ...]:
            return tuple(str(directory / name) for key in keys for name in entry.get(key) or ())

        imports = set(entry.get("Imports") or ())
        if tests:
            imports |= set(entry.get("TestImports") or ()) | set(entry.get("XTestImports") or ())
        imports.discard(path)
        packages[path] = Package(
            path=path,
            name=entry.get("Name", ""),
            dir=directory,
            module=module.get("Path", ""),
            module_dir=Path(module["Dir"]) if module.get("Dir") else None,
            go_files=files("GoFiles", "CgoFiles"),
            test_files=files("TestGoFiles", "XTestGoFiles") if tests else (),
            other_files=files("OtherFiles", "EmbedFiles"),
            imports=tuple(sorted(imports)),
            standard=bool(entry.get("Standard")),
            embedded=files("EmbedFiles"),
            version=module.get("Version", ""),
        )
        if not entry.get("DepOnly"):
            matched[path] = list(entry.get("Match") or ())
    return packages, matched


#: What ``go list`` says of a pattern that names no package (the selection's mistake,
#: exit status 2), as opposed to a module or toolchain it cannot read.
_NAMES_NOTHING = (
    "no such file or directory", "directory not found", "cannot find", "is not in std",
    "no required module provides", "outside main module", "not in the main module",
    "matched no packages",
)  # fmt: skip


def names_nothing(message: str) -> bool:
    """Whether ``go``'s ``message`` says a pattern or path names no package."""
    return any(sign in message for sign in _NAMES_NOTHING)


def load(
    cwd: Path,
    focus: Sequence[str],
    context: Sequence[str],
    config: Mapping[str, Any],
    secret: SecretCheck | None = None,
) -> Load:
    """Load ``focus`` (default ``./...``) and ``context`` in ``cwd``; remember the load.
    ``secret`` judges the files (default: the name rules alone).

    A partial load is normal: packages that fail to load (a syntax error, a dependency
    the module proxy refuses) are recorded in :attr:`Load.problems` and the rest is
    loaded. Raises :class:`ContextError` when ``go list`` itself fails (a broken
    ``go.mod``, a toolchain too old for it) or a pattern matches nothing.
    """
    cwd = cwd.resolve()
    go_config = config.get("go") or {}
    tests = not go_config.get("no_tests", False)
    base = base_environment(go_config.get("envs", ()))
    found = workspace(cwd, base)
    listing, doc_env = environments(base, found is not None)
    run_dir = cwd
    focus_patterns = list(focus) or ["./..."]
    if found is not None and found[0] == cwd and not focus:
        focus_patterns = [f"./{m.relative_to(cwd).as_posix()}/..." for m in found[1]]
    elif found is None:
        listing["GOWORK"] = doc_env["GOWORK"] = "off"
    raw = go_list([*focus_patterns, *context], run_dir, listing, tests)
    packages, matched = _entries(raw, tests)
    problems = _problems(raw)
    in_focus = sorted(p for p, ms in matched.items() if set(ms) & set(focus_patterns))
    in_context = sorted(
        p for p, ms in matched.items() if set(ms) & set(context) and p not in in_focus
    )
    for pattern in [*focus_patterns, *context]:
        if not any(pattern in ms for ms in matched.values()):
            problem = problems.get(pattern, "").removeprefix(f"pattern {pattern}: ")
            if problem and not names_nothing(problem):
                # go list could not read it (a toolchain, a go.mod): not the pattern's fault
                raise ContextError(f"go list: pattern {pattern}: {problem}")
            detail = f" ({problem})" if problem else ""
            raise SelectionError(f"go list: pattern {pattern} matched no packages{detail}")
    roots = {packages[p].module_dir for p in (*in_focus, *in_context) if packages[p].module_dir}
    module_roots = sorted({*roots, *(found[1] if found else ())})
    for path in in_focus:
        package = packages[path]
        extra = [f for f in _dir_files(package.dir) if f not in package.other_files]
        packages[path] = attrs.evolve(package, other_files=(*package.other_files, *extra))
    files: dict[str, bytes] = {}
    judge = _Judge(secret or names_only(config), cwd)
    for package in list(packages.values()):
        if package.standard and package.path not in (*in_focus, *in_context):
            continue
        scan = package.module_dir is not None and package.module_dir in module_roots
        packages[package.path] = _snapshot(package, judge, scan, files)
    result = Load(
        cwd=cwd, dir=run_dir, packages=packages, focus=tuple(in_focus),
        context=tuple(in_context), files=files, doc_env=doc_env,
        module_roots=tuple(module_roots), workspace=tuple(found[1] if found else ()),
        withheld=judge.withheld, problems=problems,
        cached_modules={
            p.module_dir: f"{p.module}@{p.version}"
            for p in packages.values() if p.module_dir is not None and p.version
        },
    )  # fmt: skip
    with _lock:
        _loads[cwd] = result
    return result
