"""The walk that finds what is protected in a working directory, now.

Run when the sandbox starts (what to bind read-only, the inventory) and for every sweep
(what was created since), so it must be complete and fast: the whole tree is walked — a
bound would leave deeper repositories writable — by names and directory types alone
(``os.scandir``'s ``d_type``), without a ``stat`` per entry: about 0.1 s per 70,000 entries.

Two things are found:

* paths protected by *name* wherever they stand — ``.git``, ``.vscode``, ``tai.toml``,
  ``.tai.toml``, ``.tai-journal`` — which are not entered;
* directories git takes for a repository whatever their name: one that holds ``HEAD``,
  ``objects`` and ``refs`` (git's own test for a git directory; with
  ``safe.bareRepository`` at its default, any ``git`` run inside one uses it, and its
  ``config`` runs code). Such a directory is protected whole and not entered — but for the
  working directory itself, where its ``HEAD``, ``objects``, ``refs`` and ``config`` are.
  Every entry with one of those three names is also listed as a *member*, shape or not, so
  a sweep can tell the members a run added (and remove just them, which breaks the shape)
  from the user's own directories that happen to bear such a name.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs

from tai_core.config import FILE_NAMES

#: tai's flush journal directory (``tai_core.store.JOURNAL_DIR``, named here so that the
#: walk at start-up does not import the store).
JOURNAL_DIR = ".tai-journal"
#: The names protected wherever they stand.
PROTECTED_NAMES = frozenset({".git", ".vscode", JOURNAL_DIR, *FILE_NAMES})
#: What makes git take a directory for a repository of its own.
GIT_DIRECTORY_ENTRIES = frozenset({"HEAD", "objects", "refs"})


@attrs.frozen
class Survey:
    """What a walk found: the protected paths, and every entry named like a member of a
    git directory (``HEAD``, ``objects``, ``refs``)."""

    protected: tuple[Path, ...]
    members: tuple[Path, ...]


def git_shaped(names: set[str]) -> bool:
    """True when a directory with entries ``names`` is one git takes for a repository."""
    return names >= GIT_DIRECTORY_ENTRIES


def survey(root: Path) -> Survey:
    """Walk ``root`` (links not followed); see the module docstring."""
    protected: list[Path] = []
    members: list[Path] = []
    pending = [str(root)]
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:
            continue
        names = {entry.name for entry in entries}
        members += [Path(e.path) for e in entries if e.name in GIT_DIRECTORY_ENTRIES]
        if git_shaped(names):
            if directory != str(root):
                protected.append(Path(directory))
                continue
            shape = GIT_DIRECTORY_ENTRIES | {"config"}
            protected += [Path(e.path) for e in entries if e.name in shape]
        for entry in entries:
            if entry.name in PROTECTED_NAMES:
                protected.append(Path(entry.path))
            elif entry.is_dir(follow_symlinks=False) and Path(entry.path) not in protected:
                pending.append(entry.path)
    return Survey(tuple(protected), tuple(members))
