"""The flush journal: what an interrupted flush was doing, and how the next start ends it.

A flush writes its plan to ``.tai-journal/<id>.prepare`` (fsynced) before it creates
anything, stages the new contents as temporary files beside their targets, then *commits*
by renaming the plan to ``<id>.commit`` — one atomic rename, the instant the flush happens.
Only then are targets replaced (each by one atomic rename) or deleted; the journal is
removed last.

So whatever instant a process dies at, :func:`recover` can end the flush:

* a ``.prepare`` plan: no target was touched; delete the staged files and the directories
  the flush created (roll back). A plan cut off while being written staged nothing yet;
* a ``.commit`` plan: every staged file is complete; move each still-staged file over its
  target and delete what was to be deleted (roll forward). Each step is idempotent, so a
  recovery killed in turn is finished by the next one.

Rolling forward checks each file first: a staged file whose content is not what the plan
recorded (a power loss without ``durable``) or a target that someone changed since the
crash is left alone and reported, never overwritten.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

import attrs

from tai_core.store._lock import directory_lock
from tai_core.store._paths import JOURNAL_DIR

_PREPARE, _COMMIT = ".prepare", ".commit"


@attrs.frozen
class Entry:
    """One file of a flush: ``temp`` stages its new content (``None``: delete it).

    ``old`` and ``new`` are the SHA-256 hex digests of the target before and after
    (``None``: absent).
    """

    path: str
    temp: str | None
    old: str | None
    new: str | None


@attrs.frozen
class Journal:
    """The plan of one flush."""

    id: str
    entries: tuple[Entry, ...]
    #: Directories the flush creates, parents first.
    dirs: tuple[str, ...] = ()

    def dump(self) -> bytes:
        """The plan as JSON bytes."""
        document = {
            "version": 1,
            "id": self.id,
            "entries": [attrs.asdict(entry) for entry in self.entries],
            "dirs": list(self.dirs),
        }
        return json.dumps(document, ensure_ascii=False, indent=1).encode()

    @classmethod
    def load(cls, data: bytes) -> Journal:
        """A plan from :meth:`dump`'s bytes (``ValueError``/``KeyError`` when torn)."""
        document = json.loads(data)
        return cls(
            id=document["id"],
            entries=tuple(Entry(**entry) for entry in document["entries"]),
            dirs=tuple(document["dirs"]),
        )


@attrs.frozen
class Recovery:
    """What :func:`recover` did: the files of interrupted flushes it completed or rolled
    back, and the problems it left for a person (each a sentence)."""

    directory: str
    completed: tuple[str, ...] = ()
    rolled_back: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.completed or self.rolled_back or self.problems)

    def messages(self) -> list[str]:
        """One line per fact, for the user (empty when nothing was interrupted)."""
        lines = []
        if self.completed:
            lines.append(
                f"completed an interrupted flush in {self.directory}: " + ", ".join(self.completed)
            )
        if self.rolled_back:
            lines.append(
                f"rolled back an interrupted flush in {self.directory} (files unchanged): "
                + ", ".join(self.rolled_back)
            )
        lines.extend(self.problems)
        return lines


def digest(data: bytes | None) -> str | None:
    """The SHA-256 hex digest recorded for ``data`` (``None``: absent)."""
    return None if data is None else hashlib.sha256(data).hexdigest()


def fsync_dir(path: Path) -> None:
    """Make the entries of directory ``path`` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _file_digest(path: Path) -> str | None:
    try:
        return digest(path.read_bytes())
    except FileNotFoundError:
        return None


def journal_path(root: Path, journal: Journal, state: str) -> Path:
    """Where the plan of ``journal`` lives in ``state`` (``.prepare`` or ``.commit``)."""
    return root / JOURNAL_DIR / (journal.id + state)


def write_plan(root: Path, journal: Journal) -> None:
    """Write and fsync the ``.prepare`` plan (the first thing a flush does)."""
    directory = root / JOURNAL_DIR
    if not directory.is_dir():
        directory.mkdir()
        fsync_dir(root)
    path = journal_path(root, journal, _PREPARE)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, journal.dump())
        os.fsync(fd)
    finally:
        os.close(fd)
    fsync_dir(directory)


def commit_plan(root: Path, journal: Journal) -> None:
    """The commit point: from here on the flush completes, whatever happens."""
    journal_path(root, journal, _PREPARE).replace(journal_path(root, journal, _COMMIT))
    fsync_dir(root / JOURNAL_DIR)


def remove_plan(root: Path, journal: Journal, state: str) -> None:
    """Remove the plan (the last step of a flush or a recovery), and the journal directory
    when no other plan is in it."""
    journal_path(root, journal, state).unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        (root / JOURNAL_DIR).rmdir()


def roll_back(root: Path, journal: Journal) -> list[str]:
    """Undo a flush that has not committed: its staged files and new directories go."""
    for entry in journal.entries:
        if entry.temp is not None:
            with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                (root / entry.temp).unlink()
    for directory in reversed(journal.dirs):
        with contextlib.suppress(OSError):
            (root / directory).rmdir()
    remove_plan(root, journal, _PREPARE)
    return [entry.path for entry in journal.entries]


def roll_forward(root: Path, journal: Journal) -> tuple[list[str], list[str]]:
    """Finish a committed flush; returns the paths completed and the problems found."""
    done: list[str] = []
    problems: list[str] = []
    for entry in journal.entries:
        target = root / entry.path
        if entry.temp is None:
            if target.exists():
                if _file_digest(target) == entry.old:
                    target.unlink()
                else:
                    problems.append(f"{entry.path}: changed since the crash; not deleted")
                    continue
            done.append(entry.path)
            continue
        temp = root / entry.temp
        if not temp.exists():
            done.append(entry.path)
            continue
        if _file_digest(temp) != entry.new:
            problems.append(f"{entry.path}: its staged new content is damaged; left as it was")
            temp.unlink()
        elif _file_digest(target) != entry.old:
            problems.append(f"{entry.path}: changed since the crash; kept, new content dropped")
            temp.unlink()
        else:
            temp.replace(target)
            done.append(entry.path)
    remove_plan(root, journal, _COMMIT)
    return done, problems


def recover_locked(root: Path) -> Recovery:
    """End every interrupted flush in ``root``; the caller holds the directory lock."""
    directory = root / JOURNAL_DIR
    if not directory.is_dir():
        return Recovery(str(root))
    completed: list[str] = []
    rolled_back: list[str] = []
    problems: list[str] = []
    for path in sorted(directory.iterdir()):
        name = path.name
        try:
            journal = Journal.load(path.read_bytes())
        except (ValueError, KeyError, TypeError):
            if name.endswith(_PREPARE):
                path.unlink()  # cut off while being written: nothing was staged yet
            else:
                problems.append(f"{path}: unreadable flush journal left in place")
            continue
        if name.endswith(_COMMIT):
            done, found = roll_forward(root, journal)
            completed.extend(done)
            problems.extend(found)
        elif name.endswith(_PREPARE):
            rolled_back.extend(roll_back(root, journal))
    with contextlib.suppress(OSError):
        directory.rmdir()
    return Recovery(str(root), tuple(completed), tuple(rolled_back), tuple(problems))


def recover(directory: Path | str) -> Recovery:
    """Complete or roll back a flush into ``directory`` that a dead process left unfinished.

    Called by the command line at start, before anything reads the working directory.
    Cheap when there is nothing to do (one ``stat``); otherwise waits for the directory's
    flush lock, so a flush in progress in another process is never disturbed.
    """
    root = Path(os.path.realpath(directory))
    if not (root / JOURNAL_DIR).is_dir():
        return Recovery(str(root))
    with directory_lock(root):
        return recover_locked(root)
