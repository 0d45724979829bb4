"""Bringing a checkpoint back without losing what the user did since.

Three trees decide each path: the *target* (the checkpoint undone to), the *end* (the tree
as the run left it, recorded when the run ended) and the tree *now*. A path that is now
as the run left it is set back to the target: restored, re-created or removed. A path
that differs from the run's end was edited after the run: it is kept and reported, never
overwritten. When the run recorded no end (tai was killed), the tree now stands in for it
and the report says so.

Ignored paths (and files over the size limit) are judged by what each checkpoint saw and
left out (:data:`._scan.Outside`), not by the ignore rules now, which the run may have
rewritten: a path left out at the target (ignored then, or under a directory ignored then)
is never deleted — if it changed since, it is kept and named, its earlier content having
never been recorded. A file the run left ignored (or too large) is the run's own while its
identity (size, times, inode, mode) is the one it had at the end: it is set back to the
target like any other — removed when the target did not have it.

Nor does undo complete what the sandbox forbids: besides protected paths, it refuses a
write that would give a directory ``HEAD``, ``objects`` and ``refs`` (git takes it for a
bare repository and runs what its ``config`` says), unless it had all three before undo
began.

Every write goes through the same checks as a change block's (:class:`tai_core.store.
PathGuard`: inside the working directory, its real path too, never a protected path such
as ``.git``, and the ``tai_path_policy`` hook); a path refused is reported and left
alone. Files are replaced atomically (a temporary file renamed over the old one), and a
symbolic link is replaced, never followed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import attrs

from tai_checkpoints._scan import (
    Entry,
    Manifest,
    Outside,
    entry_of,
    identity_of,
    left_out,
)
from tai_checkpoints._store import CheckpointStore, StoreError

#: The names that make git take a directory for a repository (``tai_sandbox.paths``).
GIT_DIRECTORY_ENTRIES = frozenset({"HEAD", "objects", "refs"})
EDITED = "edited after the run ended"


@attrs.define
class Outcome:
    """What an undo did: paths restored, removed, kept (with why) and failed."""

    restored: list[str] = attrs.Factory(list)
    removed: list[str] = attrs.Factory(list)
    kept: list[tuple[str, str]] = attrs.Factory(list)


@attrs.frozen
class Tree:
    """One of the three trees: its files' entries and what was left out, by identity.
    For the tree *now*, ``outside`` holds the identity of every path looked at."""

    files: Manifest
    outside: Outside = attrs.Factory(dict)


def _hidden(end: Tree) -> list[str]:
    """Files the run left out at its end (ignored, too large): perhaps its own."""
    return [path for path in end.outside if not path.endswith("/")]


def plan(target: Tree, end: Tree, now: Tree) -> tuple[list[tuple[str, Entry | None]], list]:
    """The paths to set back (with the target's entry, ``None`` to remove) and those kept
    (with why).

    Only paths where the target and the run's end differ can need anything: where they
    agree, the path is either as both left it or was edited by the user, and kept. So
    ``now`` need only hold those paths (:func:`now_of`), not a scan of the whole tree.
    """
    change: list[tuple[str, Entry | None]] = []
    kept: list[tuple[str, str]] = []
    for path in sorted(target.files.keys() | end.files.keys() | set(_hidden(end))):
        wanted, left = target.files.get(path), end.files.get(path)
        current = now.files.get(path)
        if left is None and path in end.outside:  # the run left it ignored or too large
            if wanted is None and left_out(target.outside, path):
                continue  # left out before the run too: never undo's
            if now.outside.get(path) != end.outside[path]:
                if wanted is not None or path in now.outside:
                    kept.append((path, EDITED))
            elif wanted is None or current != wanted:
                change.append((path, wanted))
            continue
        if wanted in (left, current):
            continue
        if current != left:
            if left is None and left_out(end.outside, path):
                kept.append((path, "ignored when the run ended, so how it left it is unknown"))
            else:
                kept.append((path, EDITED))
        elif wanted is None and left_out(target.outside, path):
            if path in target.outside and target.outside[path] != now.outside.get(path):
                kept.append((path, "ignored at the checkpoint, its content then not recorded"))
        else:
            change.append((path, wanted))
    return change, kept


def now_of(root: Path, target: Tree, end: Tree) -> Tree:
    """The tree now, of the paths the run may have changed: those where ``target`` and
    ``end`` differ, and those the run left out."""
    files: Manifest = {}
    outside: Outside = {}
    paths = {
        p for p in target.files.keys() | end.files.keys() if target.files.get(p) != end.files.get(p)
    }
    hidden = {
        path
        for path in _hidden(end)
        if path in target.files or not left_out(target.outside, path)  # else never undo's
    }
    for path in paths | hidden:
        found = identity_of(root / path)
        if found is None:
            continue
        outside[path] = found
        if path in paths or path in target.files:
            entry = entry_of(root / path)
            if entry is not None:
                files[path] = entry
    return Tree(files, outside)


def _shape(directory: Path) -> bool:
    """Whether ``directory`` holds ``HEAD``, ``objects`` and ``refs`` (of any type)."""
    return all(os.path.lexists(directory / name) for name in GIT_DIRECTORY_ENTRIES)


def _repository_guard(root: Path, paths: list[str]) -> Callable[[str], None]:
    """A check that refuses a write making a directory look like a git repository, unless
    it had that shape before (judged now, before undo writes anything)."""
    before: dict[str, bool] = {}
    for path in paths:
        parts = path.split("/")
        for index, part in enumerate(parts):
            if part in GIT_DIRECTORY_ENTRIES:
                directory = "/".join(parts[:index])
                if directory not in before:
                    before[directory] = _shape(root / directory)

    def check(path: str) -> None:
        parts = path.split("/")
        for index, part in enumerate(parts):
            directory = "/".join(parts[:index])
            if part not in GIT_DIRECTORY_ENTRIES or before.get(directory, True):
                continue
            others = GIT_DIRECTORY_ENTRIES - {part}
            if all(os.path.lexists(root / directory / name) for name in others):
                shown = directory or "the working directory"
                raise ValueError(
                    f"writing it would make {shown} look like a git repository (HEAD, "
                    "objects and refs), whose config git would run; not written"
                )

    return check


def restore(
    store: CheckpointStore,
    target: Tree,
    end: Tree,
    now: Tree,
    check: Callable[[str, str], None],
) -> Outcome:
    """Set the tree back to ``target``; ``check(path, operation)`` raises to refuse.
    Removals come first, so that a path freed by one can take a restored file."""
    outcome = Outcome()
    change, kept = plan(target, end, now)
    outcome.kept.extend(kept)
    writes = [path for path, entry in change if entry is not None]
    repository = _repository_guard(store.root, writes)
    removals = [(path, entry) for path, entry in change if entry is None]
    for path, entry in [*reversed(removals), *(item for item in change if item[1] is not None)]:
        try:
            exists = path in now.outside or path in now.files
            check(path, "delete" if entry is None else "write" if exists else "create")
            full = _placed(store.root, path)
            if entry is None:
                full.unlink()
                _prune(store.root, full.parent)
                outcome.removed.append(path)
            else:
                repository(path)
                _write(store, full, entry)
                outcome.restored.append(path)
        except (OSError, StoreError, ValueError) as error:
            outcome.kept.append((path, str(error)))
    outcome.removed.sort()
    return outcome


def _placed(root: Path, path: str) -> Path:
    """The file ``path`` names, its directory resolved inside ``root`` (its last
    component is not followed: a link there is replaced or removed itself)."""
    parts = Path(path).parts
    if not parts or Path(path).is_absolute() or ".." in parts or ".git" in parts:
        raise ValueError(f"{path}: not a path inside the working directory")
    parent = Path(os.path.realpath(root.joinpath(*parts[:-1])))
    if parent != root and not parent.is_relative_to(root):
        raise ValueError(f"{path}: its directory resolves outside the working directory")
    return parent / parts[-1]


def _write(store: CheckpointStore, full: Path, entry: Entry) -> None:
    digest, mode, link = entry
    data = store.load(digest)
    full.parent.mkdir(parents=True, exist_ok=True)
    temporary = full.with_name(f".{full.name}.tai-undo.{os.getpid()}")
    if link:
        temporary.symlink_to(os.fsdecode(data))
    else:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        temporary.chmod(mode & 0o7777 & ~0o6000)
    temporary.replace(full)


def _prune(root: Path, directory: Path) -> None:
    """Remove directories left empty by a removal, up to the working directory."""
    while directory != root and directory.is_relative_to(root):
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent
