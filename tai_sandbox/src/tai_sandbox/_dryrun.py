"""What a dry run would change: the overlay's upper layer against the real tree.

A dry run (``-no-apply``) works in an overlay of the working directory whose writes land
in an upper layer of its own (``_mounts.Layer``); change blocks, shell commands, builds and
tests all write there. The command's own diff knows only what change blocks did, so the
truth is read from the layer instead, by the outer process once the run has ended: a
regular file in the layer is new or changed, a whiteout (a character device 0/0) deletes
what the real tree has at its path, and an opaque directory (``user.overlay.opaque``,
the layer is mounted with ``userxattr``) hides everything the real tree has under it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tai_core.store import Change

_OPAQUE = "user.overlay.opaque"


def _text(path: Path) -> str:
    """A file's content for a diff: its text, or a line saying it is binary or a link."""
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode):
        return f"[symbolic link to {path.readlink()}]\n"
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return f"[binary file, {len(data)} bytes]\n"


def _opaque(path: Path) -> bool:
    try:
        return os.getxattr(path, _OPAQUE, follow_symlinks=False) == b"y"
    except OSError:
        return False


def layer_changes(upper: Path, lower: Path, skip: tuple[str, ...] = ()) -> list[Change]:
    """The changes the layer ``upper`` makes to the tree ``lower``, by path, without the
    paths under ``skip`` (relative prefixes: tai's own files)."""
    new: dict[str, str | None] = {}  # path -> its content after the run (None: deleted)

    def gone(relative: str) -> None:
        """What the real tree has at ``relative`` is hidden: deleted, unless the layer
        puts something there again (it is walked after, top down)."""
        target = lower / relative
        if target.is_dir() and not target.is_symlink():
            for top, dirs, names in os.walk(target):
                for name in [*names, *(d for d in dirs if (Path(top) / d).is_symlink())]:
                    new.setdefault((Path(top) / name).relative_to(lower).as_posix(), None)
        elif os.path.lexists(target):
            new.setdefault(relative, None)

    for top, dirs, names in os.walk(upper):
        for name in [*dirs, *names]:
            path = Path(top) / name
            relative = path.relative_to(upper).as_posix()
            info = path.lstat()
            if stat.S_ISCHR(info.st_mode) and info.st_rdev == 0:
                gone(relative)
            elif stat.S_ISDIR(info.st_mode):
                if _opaque(path):
                    gone(relative)
            else:
                new[relative] = _text(path)
    changes = []
    for key in sorted(new):
        if any(key == prefix or key.startswith(prefix + "/") for prefix in skip):
            continue
        before = lower / key
        was = _text(before) if os.path.lexists(before) and not before.is_dir() else None
        if was != new[key]:
            changes.append(Change(key, was, new[key]))
    return changes
