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

A journal is an instruction to act later, so recovery trusts only journals tai wrote and
only within the rules a flush keeps (DESIGN §4.7, *write now, run later*): the plan is
signed with tai's journal key together with its directory (``_key``), and every path in
it must be a plain relative path inside that directory — no ``..``, no absolute path, no
symbolic link leading out, never a protected path — with the staged name a flush would
give it. A journal that fails is refused with one line and left in place for the user.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

import attrs

from tai_core.store import _key
from tai_core.store._errors import PathError
from tai_core.store._lock import directory_lock
from tai_core.store._paths import JOURNAL_DIR, PathGuard, _inside
from tai_core.store._sync import fsync_dir, write_synced

_PREPARE, _COMMIT = ".prepare", ".commit"
#: The suffix of a staged file (``.<name>.<flush id>.tai-tmp`` beside its target).
TEMP_SUFFIX = ".tai-tmp"
_VERSION = 2


class ForeignJournal(ValueError):
    """A journal tai did not write here, or one that breaks the flush's path rules."""


def temp_key(key: str, flush_id: str) -> str:
    """The staged file of ``key`` in flush ``flush_id``: beside its target, hidden."""
    head, _, name = key.rpartition("/")
    return f"{head}/" * bool(head) + f".{name}.{flush_id}{TEMP_SUFFIX}"


def _plain(path: str) -> bool:
    """True for a clean relative ``/``-separated path: no empty, ``.`` or ``..`` part."""
    parts = path.split("/")
    return bool(path) and "\0" not in path and all(part not in ("", ".", "..") for part in parts)


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

    def _body(self) -> dict[str, object]:
        return {
            "version": _VERSION,
            "id": self.id,
            "entries": [attrs.asdict(entry) for entry in self.entries],
            "dirs": list(self.dirs),
        }

    @staticmethod
    def _canonical(body: dict[str, object]) -> bytes:
        return json.dumps(body, ensure_ascii=False, sort_keys=True).encode()

    def dump(self, root: Path) -> bytes:
        """The plan as JSON bytes, signed for directory ``root``."""
        body = self._body()
        body["mac"] = _key.sign(root, self._canonical(self._body()))
        return json.dumps(body, ensure_ascii=False, indent=1).encode()

    @classmethod
    def load(cls, root: Path, data: bytes) -> Journal:
        """A plan from :meth:`dump`'s bytes, for directory ``root``: ``ValueError`` (or
        ``KeyError``/``TypeError``) when torn, :class:`ForeignJournal` when tai did not
        write it for ``root`` or it breaks the path rules."""
        document = json.loads(data)
        signature = document.pop("mac", None)
        journal = cls(
            id=document["id"],
            entries=tuple(Entry(**entry) for entry in document["entries"]),
            dirs=tuple(document["dirs"]),
        )
        if document.get("version") != _VERSION or not isinstance(signature, str):
            raise ForeignJournal("it is not signed by tai")
        if not _key.verify(root, cls._canonical(document), signature):
            raise ForeignJournal("its signature is not tai's for this directory")
        reason = journal.breach(root)
        if reason:
            raise ForeignJournal(reason)
        return journal

    def breach(self, root: Path) -> str | None:
        """Which path rule of a flush the plan breaks in ``root``, or ``None``."""
        guard = PathGuard.create(root)
        if not _plain(self.id) or "/" in self.id:
            return f"its id {self.id!r} is not a flush id"
        for entry in self.entries:
            if not _plain(entry.path):
                return f"{entry.path!r} is not a plain path inside {root}"
            if entry.temp is not None and entry.temp != temp_key(entry.path, self.id):
                return f"{entry.temp!r} is not the staged name of {entry.path}"
            parent = os.path.realpath(root / entry.path.rpartition("/")[0])
            if not _inside(parent, str(root)):
                return f"{entry.path} leads outside {root} (through a symbolic link)"
            try:
                guard.check(entry.path, "write")
            except PathError as error:
                return str(error)
        parents = {"/".join(e.path.split("/")[:n]) for e in self.entries
                   for n in range(1, e.path.count("/") + 1)}  # fmt: skip
        for directory in self.dirs:
            if directory not in parents:
                return f"{directory!r} is not a directory of its files"
        return None


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
                f"completed an interrupted flush in {self.directory}: " + _few(self.completed)
            )
        if self.rolled_back:
            lines.append(
                f"rolled back an interrupted flush in {self.directory} (files unchanged): "
                + _few(self.rolled_back)
            )
        lines.extend(self.problems)
        return lines


#: Files a recovery line names before it counts the rest.
NAMED_FILES = 10


def _few(paths: tuple[str, ...]) -> str:
    """``paths`` for one line: the first :data:`NAMED_FILES`, then how many more."""
    shown = ", ".join(paths[:NAMED_FILES])
    more = len(paths) - NAMED_FILES
    return f"{shown} and {more} more" if more > 0 else shown


def digest(data: bytes | None) -> str | None:
    """The SHA-256 hex digest recorded for ``data`` (``None``: absent)."""
    return None if data is None else hashlib.sha256(data).hexdigest()


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
    write_synced(path, journal.dump(root), 0o644)
    fsync_dir(directory)


def commit_plan(root: Path, journal: Journal) -> None:
    """The commit point: from here on the flush completes, whatever happens."""
    journal_path(root, journal, _PREPARE).replace(journal_path(root, journal, _COMMIT))
    fsync_dir(root / JOURNAL_DIR)


def remove_plan(root: Path, journal: Journal, state: str) -> None:
    """Remove the plan (the last step of a flush or a recovery), and the journal directory
    when no other plan is in it."""
    # absent when writing it failed early; not a directory when a file took its name
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        journal_path(root, journal, state).unlink()
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
            journal = Journal.load(root, path.read_bytes())
        except ForeignJournal as foreign:
            problems.append(
                f"{path}: refused, not a flush journal tai wrote here ({foreign}); "
                "left in place — remove it if you do not know where it came from"
            )
            continue
        except (ValueError, KeyError, TypeError, OSError):
            if name.endswith(_PREPARE) and path.is_file() and not path.is_symlink():
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
