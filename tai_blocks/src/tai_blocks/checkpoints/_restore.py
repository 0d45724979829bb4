"""Bringing a checkpoint back without losing what the user did since.

Three trees decide each path: the *target* (the checkpoint undone to), the *end* (the tree
as the run left it, recorded when the run ended) and the tree *now*. A path that is now
as the run left it is set back to the target: restored, re-created or removed. A path
that differs from the run's end was edited after the run: it is kept and reported, never
overwritten. When the run recorded no end (tai was killed), the tree now stands in for it
and the report says so.

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

from tai_blocks.checkpoints._scan import Entry, Manifest, entry_of
from tai_blocks.checkpoints._store import CheckpointStore, StoreError


@attrs.define
class Outcome:
    """What an undo did: paths restored, removed, kept (with why) and failed."""

    restored: list[str] = attrs.Factory(list)
    removed: list[str] = attrs.Factory(list)
    kept: list[tuple[str, str]] = attrs.Factory(list)


def plan(target: Manifest, end: Manifest, now: Manifest) -> tuple[list[str], list[str]]:
    """The paths to set back to the target, and those edited after the run (kept).

    Only paths where the target and the run's end differ can need anything: where they
    agree, the path is either as both left it or was edited by the user, and kept. So
    ``now`` need only hold those paths (:func:`now_of`), not a scan of the whole tree.
    """
    change, kept = [], []
    for path in sorted(target.keys() | end.keys() | now.keys()):
        if target.get(path) == end.get(path):
            continue
        current = now.get(path)
        if current == target.get(path):
            continue
        if current != end.get(path):
            kept.append(path)
        else:
            change.append(path)
    return change, kept


def now_of(root: Path, target: Manifest, end: Manifest) -> Manifest:
    """The entries now of the paths the run changed (where ``target`` and ``end`` differ)."""
    now: Manifest = {}
    for path in target.keys() | end.keys():
        if target.get(path) != end.get(path):
            found = entry_of(root / path)
            if found is not None:
                now[path] = found
    return now


def restore(
    store: CheckpointStore,
    target: Manifest,
    end: Manifest,
    now: Manifest,
    check: Callable[[str, str], None],
) -> Outcome:
    """Set the tree back to ``target``; ``check(path, operation)`` raises to refuse."""
    outcome = Outcome()
    change, kept = plan(target, end, now)
    outcome.kept.extend((path, "edited after the run ended") for path in kept)
    for path in change:
        entry = target.get(path)
        try:
            check(path, "delete" if entry is None else "write" if path in now else "create")
            full = _placed(store.root, path)
            if entry is None:
                full.unlink()
                _prune(store.root, full.parent)
                outcome.removed.append(path)
            else:
                _write(store, full, entry)
                outcome.restored.append(path)
        except (OSError, StoreError, ValueError) as error:
            outcome.kept.append((path, str(error)))
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
