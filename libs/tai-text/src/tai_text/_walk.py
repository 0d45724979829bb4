"""Finding the files a pattern names, as git would see them.

:class:`Ignores` answers "is this path ignored?" with git's rules: ``.git/info/exclude``
first, then every ``.gitignore`` from the repository's top down to the path's directory
(each relative to its own directory), the last matching pattern deciding, so a nested
``!negation`` re-includes what an outer file excluded. Extra patterns (``-ignore``) are
read last, relative to the root. A directory that is ignored is not entered, so, as in
git, nothing under it can be re-included.

:class:`Walker` expands patterns under a root: a glob (``*``, ``?``, ``[``; ``**`` spans
directories) is matched with the same gitwildmatch rules against every file the walk
finds, so a glob that names a directory takes the files under it; a plain path names a
file (taken even when ignored: it was asked for by name) or a directory to walk. ``.git``
is never entered. Symbolic links are followed, except a link to a directory inside the
tree being walked (its files are shown once, under their own path — this also ends every
cycle through an ancestor); a directory outside already walked (by device and inode) is
not walked again, which ends cycles out there; broken links are skipped, and so are names
that are not UTF-8 (no prompt can carry them). tai's own directories (configuration,
data, cache) are never entered either, when they lie inside the tree (a run in the home
directory): they hold the sessions database, the memory of ``tai ai`` and tai's caches,
which are neither the project nor anything a model should see or a checkpoint keep; nor
are the error logs tai leaves in the tree when a change fails (``.error-log.*.xml``, its
record of the failure). A file named by its path is taken whatever its name.
Results come sorted by their shown path, whatever order the file system lists entries in.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs

from tai_core.context import is_error_log
from tai_core.textfile import is_utf8

_GLOB_CHARS = frozenset("*?[")


def is_glob(pattern: str) -> bool:
    """True when ``pattern`` has glob characters."""
    return any(char in _GLOB_CHARS for char in pattern)


def _spec(lines: Sequence[str]) -> Any:
    """The rules of ``lines``; ``None`` when there are none (pathspec not even imported:
    ~20 ms of a start in a directory without ignore files)."""
    if not lines:
        return None
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)


def _read_spec(path: Path) -> Any:
    try:
        return _spec(path.read_text(encoding="utf-8", errors="replace").splitlines())
    except OSError:
        return None


def _git_top(root: Path) -> Path | None:
    for directory in (root, *root.parents):
        if (directory / ".git").exists():
            return directory
    return None


def _below(text: str, base: str) -> str:
    """The path ``text`` relative to ``base``, a directory lexically above it (both as
    :class:`~pathlib.Path` writes them): what ``relative_to`` gives, without its cost."""
    return text if base == "." else text[len(base.rstrip("/")) + 1 :]


class Ignores:
    """Git's ignore rules below ``root``, plus ``extra`` patterns relative to ``root``."""

    def __init__(self, root: Path, extra: Sequence[str] = ()) -> None:
        self._root = root
        top = _git_top(root)
        self._top = top or root
        self._exclude = _read_spec(top / ".git" / "info" / "exclude") if top else None
        self._extra = _spec(extra)
        self._specs: dict[Path, Any] = {}
        self._chains: dict[str, tuple[tuple[Any, str], ...]] = {}

    def _directory_spec(self, directory: Path) -> Any:
        if directory not in self._specs:
            self._specs[directory] = _read_spec(directory / ".gitignore")
        return self._specs[directory]

    def _checks(self, directory: str) -> tuple[tuple[Any, str], ...]:
        """The rules that judge a path in ``directory``, each with the directory its
        patterns are relative to: the exclude file and every ``.gitignore`` from the top
        down, then the extra patterns (worked out once per directory)."""
        found = self._chains.get(directory)
        if found is not None:
            return found
        folder = Path(directory)
        checks: list[tuple[Any, Path]] = []
        if folder.is_relative_to(self._top):
            checks.append((self._exclude, self._top))
            current = self._top
            for part in folder.relative_to(self._top).parts:
                checks.append((self._directory_spec(current), current))
                current = current / part
            checks.append((self._directory_spec(current), current))
        if folder.is_relative_to(self._root):
            checks.append((self._extra, self._root))
        found = tuple((spec, str(base)) for spec, base in checks if spec is not None)
        self._chains[directory] = found
        return found

    def ignored(self, path: Path, *, is_dir: bool) -> bool:
        """Whether ``path`` (absolute, not resolved) is ignored."""
        text = str(path)
        suffix = "/" if is_dir else ""
        decision = False
        for spec, base in self._checks(str(path.parent)):
            result = spec.check_file(_below(text, base) + suffix)
            if result.include is not None:
                decision = result.include
        return decision


@attrs.frozen
class Found:
    """A file a pattern found: ``shown`` is its path relative to the root (``/``-separated;
    absolute outside the root), ``path`` the path it was found at (links not resolved)."""

    shown: str
    path: Path
    size: int


def relative_path(path: Path, root: Path) -> str | None:
    """``path`` relative to ``root`` (``/``-separated), or ``None`` when it is not inside
    (lexically, as :meth:`~pathlib.PurePath.is_relative_to` decides)."""
    text, base = str(path), str(root)
    if os.sep == "/" and base != "." and text.startswith(base.rstrip("/") + "/"):
        return _below(text, base)  # what relative_to gives, without its cost per file
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else None


def shown_path(path: Path, root: Path) -> str:
    """How ``path`` is named to the model: relative to ``root`` when inside it."""
    found = relative_path(path, root)
    return str(path) if found is None else found


class PatternError(Exception):
    """A pattern that cannot be expanded; the message names it."""


def _own_directories() -> frozenset[tuple[int, int]]:
    """``(device, inode)`` of tai's configuration, data and cache directories that exist."""
    from tai_core.config import user_cache_dir, user_config_dir, user_data_dir

    found = set()
    for directory in (user_config_dir(), user_data_dir(), user_cache_dir()):
        try:
            info = directory.expanduser().stat()
        except OSError:
            continue
        found.add((info.st_dev, info.st_ino))
    return frozenset(found)


class Walker:
    """Expands patterns under ``root`` with ``ignores``; see the module docstring."""

    def __init__(self, root: Path, ignores: Ignores) -> None:
        self._root = root
        self._ignores = ignores
        self._top = root
        self._visited: set[tuple[int, int]] = set()
        self._own = _own_directories()

    def expand(self, pattern: str) -> list[Found]:
        """The files ``pattern`` names, sorted. :class:`PatternError` when a glob matches
        no file or a path names nothing (a directory without files is not an error)."""
        found = self._glob(pattern) if is_glob(pattern) else self._path(pattern)
        return sorted(found, key=lambda item: item.shown)

    def _glob(self, pattern: str) -> list[Found]:
        relative = pattern.removeprefix("./")
        if Path(relative).is_absolute() or ".." in Path(relative).parts:
            raise PatternError(f"glob {pattern!r} must stay inside {self._root}")
        spec = _spec(["/" + relative])
        found = [
            item for item in self._walk_tree(self._root) if spec.check_file(item.shown).include
        ]
        if not found:
            raise PatternError(f"{pattern!r} matches no file")
        return found

    def _path(self, pattern: str) -> list[Found]:
        path = Path(os.path.normpath(self._root / pattern))
        try:
            info = path.stat()
        except OSError:
            raise PatternError(f"{pattern!r} matches no file") from None
        if stat.S_ISREG(info.st_mode):
            return [Found(shown_path(path, self._root), path, info.st_size)]
        if not stat.S_ISDIR(info.st_mode):
            raise PatternError(f"{pattern!r} is not a file or directory")
        return list(self._walk_tree(path))

    def _walk_tree(self, top: Path) -> Iterator[Found]:
        info = top.stat()
        self._top = top.resolve()
        self._visited = {(info.st_dev, info.st_ino)}
        return self._walk(top)

    def _walk(self, directory: Path) -> Iterator[Found]:
        try:
            paths = sorted(directory.iterdir(), key=lambda path: path.name)
        except OSError:
            return
        for path in paths:
            if path.name == ".git" or not is_utf8(path.name):
                continue  # a name not UTF-8 cannot be shown to a model or named back
            try:
                info = path.stat()
            except OSError:
                continue  # a broken link, or gone since listed
            if stat.S_ISDIR(info.st_mode):
                identity = (info.st_dev, info.st_ino)
                if (
                    identity in self._visited
                    or identity in self._own
                    or (path.is_symlink() and path.resolve().is_relative_to(self._top))
                    or self._ignores.ignored(path, is_dir=True)
                ):
                    continue
                self._visited.add(identity)
                yield from self._walk(path)
            elif (
                stat.S_ISREG(info.st_mode)
                and not is_error_log(path.name)
                and not self._ignores.ignored(path, is_dir=False)
            ):
                yield Found(shown_path(path, self._root), path, info.st_size)
