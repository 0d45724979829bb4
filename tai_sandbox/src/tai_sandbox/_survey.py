"""The walk that finds what is protected in a working directory, now.

Run when the sandbox starts (what to bind read-only, the inventory) and for every sweep
(what was created since), so it must be complete and fast: the whole tree is walked — a
bound would leave deeper repositories writable — by names and directory types alone
(``os.scandir``'s ``d_type``), without a ``stat`` per entry: about 0.1 s per 70,000 entries.

Two things are found:

* paths protected by *name* wherever they stand — ``.git``, ``.vscode``, ``tai.toml``,
  ``.tai.toml``, ``.tai-journal``, ``AGENTS.md``, ``.tai`` — which are not entered;
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

from tai_core.config import FILE_NAMES, INSTRUCTIONS_FILE, PROJECT_DIR

#: tai's flush journal directory (``tai_core.store.JOURNAL_DIR``, named here so that the
#: walk at start-up does not import the store).
JOURNAL_DIR = ".tai-journal"
#: The names protected wherever they stand.
PROTECTED_NAMES = frozenset(
    {".git", ".vscode", JOURNAL_DIR, *FILE_NAMES, INSTRUCTIONS_FILE, PROJECT_DIR}
)
#: What makes git take a directory for a repository of its own.
GIT_DIRECTORY_ENTRIES = frozenset({"HEAD", "objects", "refs"})


@attrs.frozen
class Survey:
    """What a walk of ``root`` found."""

    root: Path
    #: The paths protected by name.
    named: tuple[Path, ...]
    #: The directories git takes for a repository (``root`` among them when it is one).
    repositories: tuple[Path, ...]
    #: Every entry named like a member of a git directory (``HEAD``, ``objects``, ``refs``).
    members: tuple[Path, ...]

    @property
    def protected(self) -> tuple[Path, ...]:
        """What is protected now: the named paths, each repository-like directory whole —
        but the working directory itself, of which its members and ``config`` are."""
        root_parts = GIT_DIRECTORY_ENTRIES | {"config"}
        shaped = [
            *(path for path in self.repositories if path != self.root),
            *(
                self.root / name
                for name in sorted(root_parts)
                if self.root in self.repositories and (self.root / name).exists()
            ),
        ]
        return (*self.named, *shaped)


def git_shaped(names: set[str]) -> bool:
    """True when a directory with entries ``names`` is one git takes for a repository."""
    return names >= GIT_DIRECTORY_ENTRIES


def survey(root: Path) -> Survey:
    """Walk ``root`` (links not followed); see the module docstring."""
    named: list[Path] = []
    repositories: list[Path] = []
    members: list[Path] = []
    top = str(root)
    pending = [top]  # plain strings: a Path per directory would double the walk's cost
    while pending:
        directory = pending.pop()
        here: list[str] = []  # protected by name
        subdirectories: list[str] = []
        shape: dict[str, str] = {}  # HEAD, objects, refs -> their paths
        try:
            with os.scandir(directory) as listing:
                for entry in listing:
                    if entry.name in PROTECTED_NAMES:
                        here.append(entry.path)
                        continue
                    if entry.name in GIT_DIRECTORY_ENTRIES:
                        shape[entry.name] = entry.path
                    if entry.is_dir(follow_symlinks=False):
                        subdirectories.append(entry.path)
        except OSError:
            continue
        members += map(Path, shape.values())
        if git_shaped(set(shape)):
            repositories.append(Path(directory))
            if directory != top:
                continue  # protected whole: what is inside is not looked at
            subdirectories = [d for d in subdirectories if d not in shape.values()]
        named += map(Path, here)
        pending += subdirectories
    return Survey(root, tuple(named), tuple(repositories), tuple(members))
