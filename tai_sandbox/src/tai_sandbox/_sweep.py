"""The sweep: protected paths made inside the run are found and removed.

A read-only mount protects what exists when the sandbox starts; it cannot stop a process
from *creating* ``sub/.git`` (``git init`` with a ``core.fsmonitor`` in its config), a
``.vscode/tasks.json`` where there was no ``.vscode``, or a ``tai.toml`` where there was
none — each acts at the user's next ``git``, editor or ``tai`` outside. So tai takes an
inventory of the protected paths when the run starts (:func:`take`), and compares:

* after every block that ran a program (shell, tests: the sandbox plugin's
  ``tai_run_block`` wrapper) — what was created is removed, and the block fails with the
  reason, so the model and the user both read it;
* when the run is over, in the process outside the sandbox, once every process inside has
  ended (``_process.enter``'s ``on_exit``): nothing started in the background escapes this
  one, because nothing of the sandbox is left to race it.

A path counts as created when it is protected by name (:func:`~tai_sandbox.paths.protection`)
and was not in the inventory with the same device and inode, or when it is one of the
watched paths (``protected_paths``, ``core.hooksPath``, the target of a dangling link at a
protected name) that did not exist. Removal never follows links: a link is unlinked, a
directory removed with ``shutil.rmtree``, which works on file descriptors and does not
follow links either. tai's own journal directory at the root is left to recovery, which
refuses journals tai did not sign.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import attrs

from tai_sandbox.paths import WritableSet, link_targets, named_protected, protection


@attrs.frozen
class Inventory:
    """The protected paths of a working directory when a run started."""

    root: Path
    #: ``(path, device, inode)`` of each protected path that existed.
    present: frozenset[tuple[str, int, int]]
    #: Protected paths that did not exist (each created one is removed).
    watched: tuple[Path, ...]


def _identity(path: Path) -> tuple[str, int, int] | None:
    try:
        info = path.lstat()
    except OSError:
        return None
    return (str(path), info.st_dev, info.st_ino)


def take(writable: WritableSet, named: list[Path]) -> Inventory:
    """The inventory of ``writable``'s working directory, whose protected paths by name
    are ``named`` (:func:`~tai_sandbox.paths.named_protected`, now)."""
    root = writable.cwd
    present = frozenset(identity for path in named if (identity := _identity(path)))
    candidates = [*writable.extra, *link_targets(named)]
    watched = tuple(
        path for path in candidates if not os.path.lexists(path) and path.is_relative_to(root)
    )
    return Inventory(root, present, watched)


def _remove(path: Path) -> str | None:
    """Remove ``path`` without following links; why it could not be, or ``None``."""
    try:
        if stat.S_ISDIR(path.lstat().st_mode):
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        return None
    except OSError as error:
        return error.strerror or str(error)
    return None


def sweep(inventory: Inventory) -> list[str]:
    """Remove what was created under protected names since ``inventory``; one sentence
    per path found, saying what was done."""
    root = inventory.root
    found = [path for path in named_protected(root) if _identity(path) not in inventory.present]
    found += [path for path in inventory.watched if os.path.lexists(path)]
    messages = []
    for path in sorted(set(found)):
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        reason = protection(path.relative_to(root).parts) if path.is_relative_to(root) else None
        why = reason or "a protected path"
        problem = _remove(path)
        if problem:
            messages.append(
                f"{shown} was created inside the sandbox ({why}); removing it failed: {problem}"
            )
        else:
            messages.append(f"{shown} was created inside the sandbox and is removed ({why})")
    return messages
