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

A path counts as created when it is protected (by name, or a directory git takes for a
repository: ``_survey``) and was not in the inventory with the same device and inode, or
when it is one of the watched paths (``protected_paths``, ``core.hooksPath``, the target of
a dangling link at a protected name) that did not exist. For a directory git would take for
a repository only the members the run added (``HEAD``, ``objects``, ``refs``) are removed:
that breaks the shape and keeps the user's own files in it. Removal never follows links: a
link is unlinked, a directory removed with ``shutil.rmtree``, which works on file
descriptors and does not follow links either. tai's own journal directory at the root is
left to recovery, which refuses journals tai did not sign.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import attrs

from tai_sandbox._survey import GIT_DIRECTORY_ENTRIES, Survey
from tai_sandbox.paths import WritableSet, link_targets, named_protected, protection

#: Why a directory git would take for a repository is protected.
_GIT_SHAPED = "git takes a directory holding HEAD, objects and refs for a repository"


@attrs.frozen
class Inventory:
    """The protected paths of a working directory when a run started."""

    root: Path
    #: ``(path, device, inode)`` of each path protected by name that existed.
    present: frozenset[tuple[str, int, int]]
    #: Protected paths that did not exist (each created one is removed).
    watched: tuple[Path, ...]
    #: ``(path, device, inode)`` of each entry named ``HEAD``, ``objects`` or ``refs``.
    members: frozenset[tuple[str, int, int]] = frozenset()


def _identity(path: Path) -> tuple[str, int, int] | None:
    try:
        info = path.lstat()
    except OSError:
        return None
    return (str(path), info.st_dev, info.st_ino)


def _identities(paths: tuple[Path, ...]) -> frozenset[tuple[str, int, int]]:
    return frozenset(identity for path in paths if (identity := _identity(path)))


def take(writable: WritableSet, found: Survey) -> Inventory:
    """The inventory of ``writable``'s working directory, which holds ``found``
    (:func:`~tai_sandbox.paths.named_protected`, now)."""
    root = writable.cwd
    candidates = [*writable.extra, *link_targets(found.named)]
    watched = tuple(
        path for path in candidates if not os.path.lexists(path) and path.is_relative_to(root)
    )
    return Inventory(root, _identities(found.named), watched, _identities(found.members))


def _remove(path: Path) -> str | None:
    """Remove ``path`` without following links; why it could not be, or ``None``."""
    try:
        if stat.S_ISDIR(path.lstat().st_mode):
            import shutil  # only when something is left to sweep

            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        return None
    except OSError as error:
        return error.strerror or str(error)
    return None


def _added_members(directory: Path, inventory: Inventory) -> list[Path]:
    """What the run added of the ``HEAD``, ``objects`` and ``refs`` of ``directory``."""
    return [
        directory / name
        for name in sorted(GIT_DIRECTORY_ENTRIES)
        if _identity(directory / name) not in inventory.members
    ]


def sweep(inventory: Inventory) -> list[str]:
    """Remove what was created under protected names since ``inventory``; one sentence
    per path removed, saying what was done."""
    root = inventory.root
    found = named_protected(root)
    removals: dict[Path, str | None] = {
        path: protection(path.relative_to(root).parts)
        for path in found.named
        if _identity(path) not in inventory.present
    }
    # For a directory git would take for a repository, only what the run added of its
    # members: that breaks the shape, and the user's own "objects" or "refs" stay.
    for directory in found.repositories:
        removals.update(dict.fromkeys(_added_members(directory, inventory), _GIT_SHAPED))
    removals.update(dict.fromkeys((p for p in inventory.watched if os.path.lexists(p)), None))
    messages = []
    for path in sorted(removals):
        if not os.path.lexists(path):
            continue
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        why = removals[path] or "a protected path"
        problem = _remove(path)
        if problem:
            messages.append(
                f"{shown} was created inside the sandbox ({why}); removing it failed: {problem}"
            )
        else:
            messages.append(f"{shown} was created inside the sandbox and is removed ({why})")
    return messages
