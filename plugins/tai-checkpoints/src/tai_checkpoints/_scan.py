"""What a checkpoint holds: every file of the tree git would track, by content hash.

The walk follows git's view of the tree (``.gitignore`` files, ``.git/info/exclude``, by
:class:`tai_text._walk.Ignores`), never enters ``.git`` or tai's flush journal,
does not follow links to directories (a link is kept as a link) and leaves out files over
``checkpoint_max_file_bytes``.

What the walk sees but does not record is listed with its stat identity (:data:`Outside`):
ignored files and files over the limit, and ignored directories as whole subtrees (named
``dir/``, not entered). ``tai undo`` needs it because a run can rewrite ``.gitignore``: a
path left out before the run is never deleted by undo, and a file the run left ignored is
still recognised as the run's own while its identity is the one it had at the end.

It is cheap when little changed, as git's index is: a stat cache maps each path to its
size, modification and change times, inode and mode when it was hashed, and a file whose
stat is unchanged is not read again. The change time is there because a process can set a
file's modification time back (``touch -d``), never its change time. Files modified within
the last second are not cached (a write in the same clock tick as the stat would go unseen
— git's "racy" entries). A write that also sets the modification time back within the
clock tick of tai's stat would still go unseen; it needs a process of the run still
running while tai checkpoints. The ignore rules are judged for new
paths only, as long as no ignore file changed: the stat of every ignore file is part of
the cache, and when one differs every path is judged again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Files larger than this are left out unless ``checkpoint_max_file_bytes`` says otherwise.
DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
#: Names never walked: git's directory (or a worktree's ``.git`` file), tai's journal.
SKIPPED_NAMES = frozenset({".git", ".tai-journal"})
#: Entries modified more recently than this (nanoseconds) are hashed again next time.
_RACY_NS = 1_000_000_000

#: One file of a checkpoint: ``(content hash, permission bits, is a symbolic link)``.
Entry = tuple[str, int, bool]
#: A checkpoint's files: ``/``-separated path relative to the root -> entry.
Manifest = dict[str, Entry]
#: A path's stat identity: size, modification and change times (ns), inode, mode.
Identity = list[int]
#: What a walk saw and left out, by identity: ignored files, files over the limit, other
#: non-files, and ignored directories (their path ends with ``/``; not entered).
Outside = dict[str, Identity]


def identity(info: os.stat_result) -> Identity:
    """The stat identity of ``info``: a file with the same one was not written since."""
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_mode]


def identity_of(path: Path) -> Identity | None:
    """The identity of ``path`` now, its last component not followed (``None``: missing)."""
    try:
        return identity(path.lstat())
    except OSError:
        return None


def left_out(outside: Outside, path: str) -> bool:
    """Whether ``path`` was seen and left out, or lies under a directory that was."""
    if path in outside:
        return True
    parts = path.split("/")
    return any("/".join(parts[:index]) + "/" in outside for index in range(1, len(parts)))


def max_file_bytes(config: Any) -> int:
    """The size limit of the configuration (``checkpoint_max_file_bytes``)."""
    value = (config or {}).get("checkpoint_max_file_bytes")
    return int(value) if isinstance(value, int) and value > 0 else DEFAULT_MAX_FILE_BYTES


def _ignore_files(root: Path, top: Path) -> list[Path]:
    """The ignore files above ``root`` that apply inside it (the walk finds the rest)."""
    files = [top / ".git" / "info" / "exclude"]
    if root != top and root.is_relative_to(top):
        directory = top
        for part in root.relative_to(top).parts:
            files.append(directory / ".gitignore")
            directory = directory / part
    return files


def _stat_key(path: Path) -> list[int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


class Scanner:
    """One walk of ``root``; ``save(data) -> hash`` stores the content of new files."""

    def __init__(self, root: Path, limit: int, save: Callable[[bytes], str]) -> None:
        from tai_text._walk import Ignores, _git_top

        self.root = root
        self.limit = limit
        self.save = save
        self.ignores = Ignores(root)
        top = _git_top(root) or root
        self.signature: dict[str, Any] = {
            str(path): _stat_key(path) for path in _ignore_files(root, top)
        }

    def scan(self, cache: dict[str, Any]) -> tuple[Manifest, Outside, dict[str, Any]]:
        """The tree's manifest, what it left out, and the stat cache for the next scan;
        ``cache`` is the previous one (``{}`` for none)."""
        old_files: dict[str, list[Any]] = cache.get("files", {})
        started = time.time_ns()
        candidates: list[tuple[str, os.DirEntry[str]]] = []
        self.outside: Outside = {}
        self._walk(self.root, "", candidates)
        trusted = cache.get("ignores") == self.signature  # the walk adds each .gitignore
        old_ignored = set(cache.get("ignored", ())) if trusted else set()
        manifest: Manifest = {}
        files: dict[str, list[Any]] = {}
        ignored: list[str] = []
        for rel, entry in candidates:
            previous = old_files.get(rel)
            if not isinstance(previous, list) or len(previous) != 6:
                previous = None
            if trusted and (previous is not None or rel in old_ignored):
                is_ignored = previous is None
            else:
                is_ignored = self.ignores.ignored(self.root / rel, is_dir=False)
            found = None if is_ignored else self._entry(entry, previous, started)
            if found is None:
                if is_ignored:
                    ignored.append(rel)
                with contextlib.suppress(OSError):
                    self.outside[rel] = identity(entry.stat(follow_symlinks=False))
                continue
            manifest[rel] = found[0]
            if found[1] is not None:
                files[rel] = found[1]
        cache = {"ignores": self.signature, "files": files, "ignored": ignored}
        return manifest, self.outside, cache

    def _walk(self, directory: Path, prefix: str, out: list[tuple[str, os.DirEntry[str]]]) -> None:
        try:
            entries = list(os.scandir(directory))
        except OSError:
            return
        for entry in entries:
            name = entry.name
            if name in SKIPPED_NAMES:
                continue
            rel = prefix + name
            if name == ".gitignore":
                self.signature[entry.path] = _stat_key(Path(entry.path))
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if not self.ignores.ignored(Path(entry.path), is_dir=True):
                    self._walk(Path(entry.path), rel + "/", out)
                else:
                    with contextlib.suppress(OSError):
                        self.outside[rel + "/"] = identity(entry.stat(follow_symlinks=False))
            else:
                out.append((rel, entry))

    def _entry(
        self, entry: os.DirEntry[str], previous: list[Any] | None, started: int
    ) -> tuple[Entry, list[Any] | None] | None:
        """The manifest entry of one file and its cache row (``None`` when racy)."""
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            return None
        link = stat.S_ISLNK(info.st_mode)
        if not (link or stat.S_ISREG(info.st_mode)) or info.st_size > self.limit:
            return None
        key = [info.st_size, info.st_mtime_ns, info.st_ino, info.st_mode, info.st_ctime_ns]
        if previous is not None and previous[:5] == key:
            digest = str(previous[5])
        else:
            try:
                data = os.fsencode(Path(entry.path).readlink()) if link else _read(entry.path)
            except OSError:
                return None
            digest = self.save(data)
        row = [*key, digest] if started - info.st_mtime_ns > _RACY_NS else None
        return (digest, stat.S_IMODE(info.st_mode), link), row


def entry_of(path: Path) -> Entry | None:
    """The entry ``path`` has now (``None`` when it is missing or not a file or link),
    hashed without storing anything."""
    try:
        info = path.lstat()
        link = stat.S_ISLNK(info.st_mode)
        if not (link or stat.S_ISREG(info.st_mode)):
            return None
        data = os.fsencode(path.readlink()) if link else path.read_bytes()
    except OSError:
        return None
    return digest_of(data), stat.S_IMODE(info.st_mode), link


def _read(path: str) -> bytes:
    return Path(path).read_bytes()


def digest_of(data: bytes) -> str:
    """The content hash objects are stored under."""
    return hashlib.sha256(data).hexdigest()
