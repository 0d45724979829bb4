"""What a loop changed on disk: a stat fingerprint of the working tree, taken around it.

A loop changes files through change blocks (the store flushes them) and through the
programs it runs (``go mod tidy``, a generator, ``sed`` in a shell block), so the store
alone cannot say whether a loop made progress. Comparing the size, modification time and
inode of every file before and after the loop can, for the price of a directory walk (no
file is read). Directories named with a leading dot (``.git``, tool caches) and caches of
interpreters are left out: they change when nothing the task cares about did. A tree
larger than :data:`FILE_LIMIT` files is walked that far only, and the store's changes
still count.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Files a fingerprint looks at, at most.
FILE_LIMIT = 50_000
#: Directory names never walked (besides every name starting with a dot).
SKIPPED = frozenset({"__pycache__", "node_modules"})

Fingerprint = dict[str, tuple[int, int, int]]


def fingerprint(root: Path) -> Fingerprint:
    """Relative path -> (size, modification time in ns, inode) of the files under
    ``root``, walked in name order until :data:`FILE_LIMIT`."""
    found: Fingerprint = {}
    pending = [root]
    while pending and len(found) < FILE_LIMIT:
        directory = pending.pop()
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name, reverse=True)
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not entry.name.startswith(".") and entry.name not in SKIPPED:
                        pending.append(Path(entry.path))
                    continue
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            relative = os.path.relpath(entry.path, root)
            found[relative] = (info.st_size, info.st_mtime_ns, info.st_ino)
    return found


def changed(before: Fingerprint, after: Fingerprint) -> list[str]:
    """The files added, removed or changed between two fingerprints, sorted."""
    return sorted(
        path for path in before.keys() | after.keys() if before.get(path) != after.get(path)
    )
