"""Which paths a run may write: the writable set, and the protected paths inside it.

One definition serves three enforcers, so they cannot disagree: the mount layer binds the
writable roots read-write and every existing protected path read-only over itself
(:func:`existing_protected`), the path policy refuses change blocks by the same rules
(:meth:`WritableSet.refusal`), and the shell policy refuses commands that name protected
paths as write targets (:func:`protection`).

The writable roots are the working directory, the Go toolchain's writable directories
(``GOCACHE``, ``GOMODCACHE``, each ``GOPATH/pkg``; from the environment, else from
``go env``), tai's configuration directory, ``/tmp`` and ``/dev/shm``. Inside the working
directory and the configuration directory, paths that would run code later, outside the
sandbox, stay read-only: git hooks and git configuration (of nested repositories and
submodules too, and the directory ``core.hooksPath`` names), editor task files
(``.vscode``), tai's own configuration files, and whatever ``protected_paths`` adds.
Rules are matched on path components, so they also cover paths that do not exist yet;
the mount layer can only protect the ones that exist when tai starts.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import attrs

from tai_core.config import FILE_NAMES, load_config, user_cache_dir, user_config_dir

#: Writable everywhere, but fresh inside the sandbox (nothing written there outlives it).
SCRATCH_ROOTS: tuple[Path, ...] = (Path("/tmp"), Path("/dev/shm"))

#: Directories the walk for nested repositories never enters.
_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", ".venv", ".tox", ".cache"})

#: Most directories the walk for nested repositories visits (start-up time is bounded).
WALK_LIMIT = 20_000


def protection(parts: Sequence[str]) -> str | None:
    """Why the path with components ``parts`` (relative to a writable root) is protected,
    or ``None`` when it is not. Pure: matched on names, so it covers paths not yet made."""
    for index, part in enumerate(parts):
        if part == ".vscode":
            return "editor task files (.vscode) run code when the editor opens the folder"
        if part != ".git":
            continue
        rest = parts[index + 1 :]
        if rest[:1] == ("hooks",) or rest[:1] == ("config",):
            return f".git/{rest[0]} runs code when git runs outside the sandbox"
        if rest[:1] == ("modules",) and any(name in ("hooks", "config") for name in rest[1:]):
            return "a submodule's git hooks and configuration run code outside the sandbox"
        if rest[:1] == ("worktrees",) and rest[-1:] == ("config.worktree",):
            return "a worktree's git configuration runs code outside the sandbox"
    if parts and parts[-1] in FILE_NAMES:
        return f"{parts[-1]} is tai's own configuration (it decides what tai allows)"
    return None


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def resolve(path: str | os.PathLike[str], cwd: Path) -> Path:
    """``path`` made absolute against ``cwd``, ``~`` expanded and symlinks resolved (also
    for a last component that does not exist yet)."""
    return (cwd / Path(path).expanduser()).resolve()


@attrs.frozen
class WritableSet:
    """The writable roots of a run and the protected paths inside them, all resolved."""

    cwd: Path
    roots: tuple[Path, ...]
    #: Directories whose protected paths :func:`protection` describes (cwd, config dir).
    guarded: tuple[Path, ...]
    #: Further protected paths: ``protected_paths`` and git's ``core.hooksPath``.
    extra: tuple[Path, ...] = ()

    def refusal(self, path: str | os.PathLike[str]) -> str | None:
        """Why writing ``path`` is refused, or ``None`` when it may be written."""
        full = resolve(path, self.cwd)
        reason = self.protected(full)
        if reason:
            return reason
        kept = [root for root in self.roots if root not in SCRATCH_ROOTS or root == self.cwd]
        if any(_inside(full, root) for root in kept):
            return None
        for scratch in SCRATCH_ROOTS:
            if not _inside(full, scratch):
                continue
            # The directories that lead to a kept root under a fresh /tmp stay read-only.
            tops = [
                scratch / root.relative_to(scratch).parts[0]
                for root in kept
                if scratch in root.parents and root.parent != scratch
            ]
            if any(_inside(full, top) for top in tops):
                return f"{full} is read-only: only the working directory is writable beside it"
            return None
        return f"{full} is outside the writable directories ({', '.join(map(str, self.roots))})"

    def protected(self, full: Path) -> str | None:
        """Why the resolved path ``full`` is protected, or ``None``."""
        for protected in self.extra:
            if _inside(full, protected):
                return f"{full} is protected (protected_paths or git's core.hooksPath)"
        for root in self.guarded:
            if _inside(full, root):
                reason = protection(full.relative_to(root).parts)
                if reason:
                    return f"{full} is protected: {reason}"
        return None

    def is_writable(self, path: str | os.PathLike[str]) -> bool:
        """True when ``path`` may be written."""
        return self.refusal(path) is None


@cache
def go_writable_dirs() -> tuple[Path, ...]:
    """``GOCACHE``, ``GOMODCACHE`` and each ``GOPATH/pkg``: from the environment when set,
    else from ``go env`` (none when Go is not installed). Cached for the process."""
    import shutil
    import subprocess

    names = ("GOCACHE", "GOMODCACHE", "GOPATH")
    values = {name: os.environ.get(name, "") for name in names}
    missing = [name for name in names if not values[name]]
    go = shutil.which("go") if missing else None
    if go:
        try:
            answer = subprocess.run(
                [go, "env", *missing], capture_output=True, text=True, timeout=10, check=True
            )
        except (OSError, subprocess.SubprocessError):
            answer = None
        if answer is not None:
            values.update(zip(missing, answer.stdout.splitlines(), strict=False))
    dirs = [values["GOCACHE"], values["GOMODCACHE"]]
    dirs += [str(Path(entry) / "pkg") for entry in values["GOPATH"].split(os.pathsep) if entry]
    return tuple(Path(entry) for entry in dirs if entry and Path(entry).is_absolute())


def _hooks_path(repository: Path) -> Path | None:
    """The directory ``core.hooksPath`` names in ``repository``'s ``.git/config``."""
    try:
        text = (repository / ".git" / "config").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line.strip("[]").strip().lower()
        elif section == "core" and "=" in line:
            key, _, value = line.partition("=")
            if key.strip().lower() == "hookspath" and value.strip():
                return resolve(value.strip().strip('"'), repository)
    return None


def writable_set(
    cwd: Path,
    config: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    go_dirs: Sequence[Path] | None = None,
) -> WritableSet:
    """The writable set of a run in ``cwd`` with configuration ``config`` (``go_dirs``:
    the Go directories, default :func:`go_writable_dirs`)."""
    here = cwd.resolve()
    config_dir = user_config_dir(environ).expanduser().resolve()
    cache_dir = user_cache_dir(environ).expanduser()
    cache_dir.mkdir(parents=True, exist_ok=True)
    go = go_writable_dirs() if go_dirs is None else go_dirs
    roots = [
        here, *(path.resolve() for path in go), config_dir, cache_dir.resolve(), *SCRATCH_ROOTS,
    ]  # fmt: skip
    extra = [resolve(entry, here) for entry in config.get("protected_paths", [])]
    hooks = _hooks_path(here)
    if hooks is not None:
        extra.append(hooks)
    return WritableSet(
        cwd=here,
        roots=tuple(dict.fromkeys(roots)),
        guarded=(here, config_dir),
        extra=tuple(extra),
    )


_active: WritableSet | None = None


def activate(writable: WritableSet) -> None:
    """Make ``writable`` the set :func:`is_writable` answers from (the sandbox's)."""
    global _active  # noqa: PLW0603 - one writable set per process, set once at start-up
    _active = writable


def current() -> WritableSet:
    """The active writable set, or the one tai would use in the current directory."""
    if _active is None:
        cwd = Path.cwd()
        activate(writable_set(cwd, load_config(cwd).values))
    assert _active is not None
    return _active


def is_writable(path: str | os.PathLike[str]) -> bool:
    """True when this run may write ``path`` (relative to the working directory, or
    absolute): inside a writable root and not protected. For the context providers, which
    mark focus and context files that are not writable as read-only."""
    return current().is_writable(path)


def _walk(root: Path, limit: int) -> Iterator[Path]:
    """Every protected path that exists under ``root`` (visiting at most ``limit``
    directories; nested repositories deeper in a larger tree are not found)."""
    pending = [root]
    visited = 0
    while pending and visited < limit:
        directory = pending.pop()
        visited += 1
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            if entry.name in FILE_NAMES or entry.name == ".vscode":
                yield path
            elif entry.name == ".git" and entry.is_dir(follow_symlinks=False):
                yield from _git_protected(path)
            elif entry.is_dir(follow_symlinks=False) and entry.name not in _SKIPPED_DIRS:
                pending.append(path)


def _git_protected(git_dir: Path) -> Iterator[Path]:
    """The hooks and configuration of a git directory, its worktrees and its submodules'
    git directories (``modules/<name>/``, nested, a name possibly holding slashes)."""
    for name in ("hooks", "config"):
        if (git_dir / name).exists():
            yield git_dir / name
    yield from git_dir.glob("worktrees/*/config.worktree")
    pending = [git_dir / "modules"]
    while pending:
        try:
            children = [entry for entry in os.scandir(pending.pop()) if entry.is_dir()]
        except OSError:
            continue
        for child in children:
            path = Path(child.path)
            if (path / "HEAD").exists():
                yield from (path / name for name in ("hooks", "config") if (path / name).exists())
                pending.append(path / "modules")
            else:
                pending.append(path)


def existing_protected(writable: WritableSet, limit: int = WALK_LIMIT) -> list[Path]:
    """The protected paths that exist now, for the mount layer to bind read-only: found by
    walking the working directory (bounded by ``limit``), the configuration directory's
    files, and the extra paths."""
    found = [*_walk(writable.cwd, limit)]
    for root in writable.guarded[1:]:
        found += [root / name for name in FILE_NAMES if (root / name).exists()]
    found += [path for path in writable.extra if path.exists()]
    inside = [path for path in found if any(_inside(path, root) for root in writable.roots)]
    return sorted(set(inside))
