"""Finding the entry points of the group ``tai`` without importing ``importlib.metadata``.

Every start of tai needs the plugin list (plugins add commands, so even ``tai --help``
does), and ``importlib.metadata`` costs about 33 ms to import on this project's machines
(it pulls in ``email``, ``zipfile``, ``csv`` and ``socket``) — a fifth of the 150 ms
start-up budget. The part tai needs is small and fixed by the packaging specifications:
installed distributions are ``NAME-VERSION.dist-info`` (or ``.egg-info``) directories on
``sys.path``, their entry points an INI-style ``entry_points.txt``. This module reads
exactly that, with the same precedence as ``importlib.metadata`` (the first distribution
of a name on ``sys.path`` wins), and hands out objects with the interface the plugin host
uses of ``importlib.metadata.EntryPoint`` (``name``, ``value``, ``dist``, ``load()``), so
the host accepts either. Anything unusual (zipped eggs, custom finders) is left to
``importlib.metadata``, which :func:`find_entry_points` falls back to when a ``sys.path``
entry is not a plain directory.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_NORMALIZE = re.compile(r"[-_.]+")
_META_SUFFIXES = (".dist-info", ".egg-info")


class Distribution:
    """An installed distribution as named by its metadata directory."""

    __slots__ = ("name", "version")

    def __init__(self, name: str, version: str) -> None:
        self.name = name
        self.version = version

    def __repr__(self) -> str:
        return f"Distribution({self.name!r}, {self.version!r})"


class EntryPoint:
    """One entry point: ``name = module[:attribute.path]`` of a distribution."""

    __slots__ = ("dist", "group", "name", "value")

    def __init__(self, name: str, value: str, group: str, dist: Distribution | None) -> None:
        self.name = name
        self.value = value
        self.group = group
        self.dist = dist

    def load(self) -> Any:
        """Import the module and return it, or the named attribute of it."""
        module_name, _, attribute = self.value.partition(":")
        target: Any = importlib.import_module(module_name.strip())
        for part in filter(None, attribute.strip().split(".")):
            target = getattr(target, part)
        return target

    def __repr__(self) -> str:
        return f"EntryPoint({self.name!r}, {self.value!r}, {self.group!r})"


def _distribution(metadata_dir: Path) -> Distribution:
    stem = metadata_dir.name.rsplit(".", 1)[0]
    name, _, version = stem.partition("-")
    if not version:
        version = _version_from_metadata(metadata_dir)
    return Distribution(name.replace("_", "-"), version.partition("-")[0])


def _version_from_metadata(metadata_dir: Path) -> str:
    for file_name in ("METADATA", "PKG-INFO"):
        try:
            with (metadata_dir / file_name).open(encoding="utf-8") as handle:
                for line in handle:
                    if line.startswith("Version:"):
                        return line.partition(":")[2].strip()
                    if not line.strip():
                        break
        except OSError:
            continue
    return ""


def _parse(text: str, group: str, dist: Distribution) -> Iterator[EntryPoint]:
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip()
        elif current == group and "=" in line:
            name, _, value = line.partition("=")
            yield EntryPoint(name.strip(), value.strip(), group, dist)


def _metadata_dirs() -> Iterator[Path | None]:
    """Each distribution's metadata directory, first on ``sys.path`` first; ``None`` when a
    ``sys.path`` entry is a zip file this reader leaves to ``importlib.metadata``."""
    seen: set[str] = set()
    for entry in sys.path:
        directory = Path(entry or ".")
        if not directory.is_dir():
            if directory.is_file():
                yield None
            continue
        try:
            names = sorted(path.name for path in directory.iterdir())
        except OSError:
            continue
        for name in names:
            if not name.endswith(_META_SUFFIXES):
                continue
            key = _key(name.split("-", 1)[0].rsplit(".", 1)[0])
            if key not in seen:
                seen.add(key)
                yield directory / name


def _key(name: str) -> str:
    return _NORMALIZE.sub("-", name).lower()


#: Each distribution with the text of its ``entry_points.txt``.
Found = tuple[tuple[Distribution, str], ...]
#: ``sys.path`` with each entry's modification time (:func:`_path_state`).
PathState = tuple[tuple[str, int], ...]

#: The file the console script keeps what was read in (:func:`keep_between_starts`).
_kept_in: str | None = None

#: Bumped when the kept file's layout changes.
FORMAT = 1


def keep_between_starts(path: str) -> None:
    """Keep what the distributions' files say in the file at ``path`` (one of the launch
    directory's, :mod:`tai_core.config._launch_files`), and take it from there while
    ``sys.path`` and the modification times of its directories are unchanged.

    Reading the files costs ~10 ms at every start (a directory listing and a file per
    installed distribution); the kept answer one small read. What it keys on changes when
    a distribution is installed, removed or reinstalled (its metadata directory is made
    anew); a hand edit of an ``entry_points.txt`` in place is not seen —
    ``TAI_NO_LAUNCH_CACHE=1`` reads the files. For the console script: an embedding
    application reads them itself."""
    global _kept_in  # noqa: PLW0603 - one file per process, set by the console script
    _kept_in = path


@functools.lru_cache(maxsize=1)
def _read_all(state: PathState) -> Found | None:
    """Each distribution with the text of its ``entry_points.txt``; ``None`` when a
    ``sys.path`` entry is left to ``importlib.metadata``. Read again when ``state``, the
    :func:`_path_state` it is asked for, changes."""
    kept = _read_kept(_kept_in, state) if _kept_in is not None else None
    if kept is not None:
        return kept
    found: list[tuple[Distribution, str]] = []
    for metadata_dir in _metadata_dirs():
        if metadata_dir is None:
            return None
        try:
            text = (metadata_dir / "entry_points.txt").read_text(encoding="utf-8")
        except OSError:
            continue
        found.append((_distribution(metadata_dir), text))
    if _kept_in is not None:
        _keep(_kept_in, state, found)
    return tuple(found)


def _read_kept(path: str, state: PathState) -> Found | None:
    """What the file at ``path`` kept for ``state``, or ``None`` (missing, foreign, of
    another state, or not of the expected shape)."""
    import marshal

    from tai_core.config._launch_files import read_launch_file

    data = read_launch_file(path)
    try:
        form, kept_state, rows = marshal.loads(data) if data is not None else (0, (), ())
        if form != FORMAT or kept_state != state:
            return None
        if not all(type(part) is str for row in rows for part in row):
            return None
        return tuple((Distribution(name, version), text) for name, version, text in rows)
    except (ValueError, EOFError, TypeError):
        return None


def _keep(path: str, state: PathState, found: list[tuple[Distribution, str]]) -> None:
    """Write ``found`` for ``state`` to the file at ``path``; a failure costs only the
    next start's reading."""
    import marshal

    from tai_core.config._launch_files import write_launch_file

    rows = [(dist.name, dist.version, text) for dist, text in found]
    with contextlib.suppress(OSError, ValueError):
        write_launch_file(path, marshal.dumps((FORMAT, state, rows)))


def _path_state() -> PathState:
    """``sys.path`` with each entry's modification time: what installing or removing a
    distribution in one of its directories changes."""
    state = []
    for entry in sys.path:
        try:
            state.append((entry, Path(entry or ".").stat().st_mtime_ns))
        except OSError:
            state.append((entry, -1))
    return tuple(state)


def find_entry_points(group: str) -> list[EntryPoint]:
    """Every entry point of ``group`` of the distributions installed on ``sys.path``.

    The files are read once per state of ``sys.path`` (its entries and their modification
    times): the plugin host and the plugins that keep groups of their own (skills) ask in
    the same start, and each reading opens a file per installed distribution."""
    texts = _read_all(_path_state())
    if texts is None:
        return _with_importlib(group)
    return [entry for dist, text in texts for entry in _parse(text, group, dist)]


def distribution_version(name: str) -> str | None:
    """The version of the installed distribution ``name``, or ``None``."""
    wanted = _key(name)
    for metadata_dir in _metadata_dirs():
        if metadata_dir is not None and _key(metadata_dir.name.split("-", 1)[0]) == wanted:
            return _distribution(metadata_dir).version or None
    return None


def _with_importlib(group: str) -> list[EntryPoint]:
    from importlib.metadata import entry_points

    return [
        EntryPoint(
            ep.name,
            ep.value,
            group,
            Distribution(ep.dist.name, ep.dist.version) if ep.dist else None,
        )
        for ep in entry_points(group=group)
    ]
