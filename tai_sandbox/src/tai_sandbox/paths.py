"""Which paths a run may write: the writable set, and what stays out of reach inside it.

One definition serves four enforcers, so they cannot disagree: the mount layer binds the
writable roots read-write and every existing protected path read-only over itself
(:func:`existing_protected`), the path policy refuses change blocks by the same rules
(:meth:`WritableSet.refusal`), the shell policy refuses commands that name protected paths
as write targets (:func:`protection`), and the sweep (``_sweep``) removes protected paths
that a process inside created although they did not exist when the run began.

*Writable* are the working directory, tai's data directory (records, sessions) and cache
directory, and a fresh ``/tmp`` and ``/dev/shm``. Go's caches (``GOCACHE``,
``GOMODCACHE``, each ``GOPATH/pkg``) are *overlaid*: builds inside read the user's caches
and write to a layer of their own that is dropped when the run ends, so nothing written
there changes what builds outside (:attr:`WritableSet.overlays`). Everything else is
read-only, the user's configuration directory and ``/etc/tai`` included.

*Protected* inside the writable roots — neither changed nor created — is what would act
later, outside the sandbox (the rule to test against is *write now, run later*):

* all of every ``.git`` of the working tree, directory or file, and the git directory a
  ``.git`` file points to. Git reads code to run from many places in it (``config``,
  ``commondir``, ``hooks/``, ``info/``, ``modules/``, ``worktrees/``,
  ``objects/info/alternates`` …), so, as codex does, none of it is writable: git commands
  that only read (``status``, ``diff``, ``log``, ``show``, ``blame``, ``grep``) work inside,
  those that write the repository (``commit``, ``add``, ``stash``, ``checkout``) fail with
  "Read-only file system". tai itself never needs them;
* editor task files (``.vscode``), tai's configuration files (``tai.toml``, ``.tai.toml``),
  the project's standing instructions (``AGENTS.md``, and ``.tai/`` with its agent commands
  and skills: a prompt every later run obeys) and tai's flush journals (``.tai-journal``)
  at any depth, and whatever ``protected_paths`` and git's ``core.hooksPath`` name;
* directories git takes for a repository whatever their name (``HEAD``, ``objects/`` and
  ``refs/`` in them: a bare repository, found by any git command run inside it);
* tai's own installation where it lies inside a writable root (a virtual environment or an
  editable checkout under the working directory), the helper programs tai installs
  (``bin/`` of the cache directory) and the overlay layers of runs (``sandbox-runs/``);
* *hidden* behind an empty read-only mount: tai's keys (``keys/`` of the data directory).

Rules are matched on path components, so they also cover paths that do not exist yet.
The mount layer can only bind what exists when tai starts; what is created later under a
protected name is found and removed by the sweep.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import attrs

from tai_core.config import (
    FILE_NAMES,
    INSTRUCTIONS_FILE,
    LAUNCH_DIR,
    PROJECT_DIR,
    load_config,
    user_cache_dir,
    user_data_dir,
)
from tai_sandbox._survey import JOURNAL_DIR, Survey, survey

#: Writable everywhere, but fresh inside the sandbox (nothing written there outlives it).
SCRATCH_ROOTS: tuple[Path, ...] = (Path("/tmp"), Path("/dev/shm"))

#: tai's key directory in the data directory (``tai_core.store._key.KEYS_DIR``).
KEYS_DIR = "keys"
#: The helper programs tai installs, in the cache directory.
BIN_DIR = "bin"
#: The per-run layers of the Go cache overlays, in the cache directory (read-only inside:
#: the next start removes what it finds there, so nothing inside may plant links in it).
RUNS_DIR = "sandbox-runs"
#: The directories of the cache directory that are read-only inside: the helper programs,
#: the run layers, and the launch cache (answers printed later: ``tai_core.cli._launch``).
CACHE_READ_ONLY = (BIN_DIR, RUNS_DIR, LAUNCH_DIR)


def protection(parts: Sequence[str]) -> str | None:
    """Why the path with components ``parts`` (relative to the working directory) is
    protected, or ``None`` when it is not. Pure: matched on names, so it covers paths not
    yet made."""
    for part in parts:
        if part == ".git":
            return "git's directory (.git) is read-only: git runs code it reads there"
        if part == ".vscode":
            return "editor task files (.vscode) run code when the editor opens the folder"
        if part == JOURNAL_DIR:
            return "tai's flush journals are tai's alone (the next start acts on them)"
        if part == PROJECT_DIR:
            return (f"the project's agent commands and skills ({PROJECT_DIR}) instruct every "
                    "later run; only the user writes them")  # fmt: skip
    if parts and parts[-1] in FILE_NAMES:
        return f"{parts[-1]} is tai's own configuration (it decides what tai allows)"
    if parts and parts[-1] == INSTRUCTIONS_FILE:
        return (f"{INSTRUCTIONS_FILE} instructs every later run; only the user writes it "
                f"(write a proposal to another file, such as {INSTRUCTIONS_FILE}.new)")  # fmt: skip
    return None


def within(path: Path, root: Path) -> bool:
    """``path`` is ``root`` or below it (both absolute and resolved: compared by their
    parts, which ``Path`` keeps, instead of building every parent)."""
    return path.parts[: len(root.parts)] == root.parts


def resolve(path: str | os.PathLike[str], cwd: Path) -> Path:
    """``path`` made absolute against ``cwd``, ``~`` expanded and symlinks resolved (also
    for a last component that does not exist yet)."""
    return (cwd / Path(path).expanduser()).resolve()


@attrs.frozen
class WritableSet:
    """The writable roots of a run and what is out of reach inside them, all resolved."""

    cwd: Path
    roots: tuple[Path, ...]
    #: Further protected paths: ``protected_paths``, git's ``core.hooksPath``, tai's
    #: installation, the helper programs.
    extra: tuple[Path, ...] = ()
    #: Directories whose writes are dropped when the run ends (Go's caches).
    overlays: tuple[Path, ...] = ()
    #: Directories hidden inside (tai's keys).
    hidden: tuple[Path, ...] = ()

    def refusal(self, path: str | os.PathLike[str]) -> str | None:
        """Why writing ``path`` is refused, or ``None`` when it may be written."""
        full = resolve(path, self.cwd)
        reason = self.protected(full)
        if reason:
            return reason
        kept = [root for root in self.roots if root not in SCRATCH_ROOTS or root == self.cwd]
        if any(within(full, root) for root in kept):
            return None
        for scratch in SCRATCH_ROOTS:
            if not within(full, scratch):
                continue
            # The directories that lead to a kept root under a fresh /tmp stay read-only.
            tops = [
                scratch / root.relative_to(scratch).parts[0]
                for root in kept
                if scratch in root.parents and root.parent != scratch
            ]
            if any(within(full, top) for top in tops):
                return f"{full} is read-only: only the working directory is writable beside it"
            return None
        return f"{full} is outside the writable directories ({', '.join(map(str, self.roots))})"

    def protected(self, full: Path) -> str | None:
        """Why the resolved path ``full`` is protected, or ``None``."""
        for hidden in self.hidden:
            if within(full, hidden):
                return f"{full} is tai's own (hidden inside the sandbox)"
        for protected in self.extra:
            if within(full, protected):
                return (
                    f"{full} is protected (protected_paths, git's core.hooksPath, a git "
                    "directory, or tai's own installation)"
                )
        if within(full, self.cwd):
            reason = protection(full.relative_to(self.cwd).parts)
            if reason:
                return f"{full} is protected: {reason}"
        return None

    def is_writable(self, path: str | os.PathLike[str]) -> bool:
        """True when ``path`` may be written."""
        return self.refusal(path) is None


@cache
def go_writable_dirs() -> tuple[Path, ...]:
    """``GOCACHE``, ``GOMODCACHE`` and each ``GOPATH/pkg``: from the environment when set,
    else from ``go env`` (none when Go is not installed; kept between starts: ``_go_env``),
    without one inside another. Cached for the process."""
    from tai_sandbox._go_env import go_env

    values = go_env()
    dirs = [values["GOCACHE"], values["GOMODCACHE"]]
    dirs += [str(Path(entry) / "pkg") for entry in values["GOPATH"].split(os.pathsep) if entry]
    paths = sorted(
        {Path(entry).resolve() for entry in dirs if entry and Path(entry).is_absolute()},
        key=lambda path: (len(path.parts), str(path)),
    )
    kept: list[Path] = []
    for path in paths:
        if not any(within(path, other) for other in kept):
            kept.append(path)
    return tuple(kept)


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


def installation() -> tuple[Path, ...]:
    """tai's own installation: the interpreter's prefixes and every import path (worked
    out once per state of ``sys.path``: entering the sandbox asks twice)."""
    return _installation(tuple(sys.path))


@cache
def _installation(import_path: tuple[str, ...]) -> tuple[Path, ...]:
    found = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)]
    found += [Path(entry) for entry in import_path if entry and Path(entry).is_absolute()]
    return tuple(path.resolve() for path in found if path.exists())


def _own_directory(path: Path) -> None:
    """Make sure ``path`` is a real directory of tai's: made when missing, and a link or a
    file in its place — which tai never makes there — replaced (never followed)."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        path.mkdir(mode=0o700, parents=True)
        return
    if not stat.S_ISDIR(info.st_mode):
        path.unlink()
        path.mkdir(mode=0o700)


def writable_set(
    cwd: Path,
    config: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    go_dirs: Sequence[Path] | None = None,
) -> WritableSet:
    """The writable set of a run in ``cwd`` with configuration ``config`` (``go_dirs``:
    the Go directories, default :func:`go_writable_dirs`)."""
    here = cwd.resolve()
    data_dir = user_data_dir(environ).expanduser()
    cache_dir = user_cache_dir(environ).expanduser()
    for directory in (data_dir / KEYS_DIR, *(cache_dir / name for name in CACHE_READ_ONLY)):
        _own_directory(directory)  # so the sandbox can bind it
    data_dir, cache_dir = data_dir.resolve(), cache_dir.resolve()
    roots = [here, data_dir, cache_dir, *SCRATCH_ROOTS]
    go = go_writable_dirs() if go_dirs is None else go_dirs
    overlays = [path for path in go if path not in SCRATCH_ROOTS]
    extra = [resolve(entry, here) for entry in config.get("protected_paths", [])]
    hooks = _hooks_path(here)
    if hooks is not None:
        extra.append(hooks)
    extra += [cache_dir / name for name in CACHE_READ_ONLY]
    extra += [
        path
        for path in installation()
        if path != here and not within(here, path) and any(within(path, r) for r in roots)
    ]
    return WritableSet(
        cwd=here,
        roots=tuple(dict.fromkeys(roots)),
        extra=tuple(dict.fromkeys(extra)),
        overlays=tuple(overlays),
        hidden=(data_dir / KEYS_DIR,),
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


def _git_file_target(path: Path) -> Path | None:
    """The git directory a ``.git`` file (``gitdir: …``) points to."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    first = text.strip().splitlines()[:1]
    if not first or not first[0].startswith("gitdir:"):
        return None
    return resolve(first[0].removeprefix("gitdir:").strip(), path.parent)


def link_targets(paths: Iterable[Path]) -> list[Path]:
    """What protected paths lead to: the git directories ``.git`` files point to, and the
    targets of symbolic links at protected names (existing or not)."""
    found = []
    for path in paths:
        if path.is_symlink():
            found.append(path.resolve())
        elif path.name == ".git" and path.is_file():
            target = _git_file_target(path)
            if target is not None:
                found.append(target)
    return found


def named_protected(root: Path) -> Survey:
    """What :func:`~tai_sandbox._survey.survey` finds under ``root``, but tai's own journal
    at the root (tai writes it inside the sandbox; recovery checks what it holds)."""
    found = survey(root)
    own_journal = root / JOURNAL_DIR
    return attrs.evolve(found, named=tuple(p for p in found.named if p != own_journal))


def existing_protected(writable: WritableSet, found: Survey | None = None) -> list[Path]:
    """The protected paths that exist now, for the mount layer to bind read-only: found by
    walking the whole working directory (or given, from :func:`named_protected`), with
    what they lead to, and the extra paths — those inside a writable root, resolved,
    without repeats, shortest first."""
    named = list((found or named_protected(writable.cwd)).protected)
    candidates = [
        *(path for path in named if not path.is_symlink()),
        *link_targets(named),
        *writable.extra,
    ]
    inside = {
        path.resolve()
        for path in candidates
        if path.exists() and any(within(path.resolve(), root) for root in writable.roots)
    }
    return sorted(inside, key=lambda path: (len(path.parts), str(path)))
