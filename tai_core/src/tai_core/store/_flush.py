"""The flush: a round's pending edits reach the disk all together or not at all.

Under the directory lock (one flush per directory at a time), after ending any flush a dead
process left behind:

1. every file to write or delete is checked against what tai read: one that someone else
   changed is a :class:`~tai_core.store.ConflictError` and nothing is written;
2. the plan is written to the journal and fsynced;
3. missing directories are made and each new content is staged as a temporary file in its
   target's directory (same file system, so the final rename is atomic), with the target's
   permission bits; when durable, each staged file is fsynced, then every directory that
   got a new entry;
4. the plan is committed (one atomic rename of the journal file);
5. each staged file is renamed over its target, each deleted file unlinked;
6. the journal is removed.

A failure before step 4 undoes steps 2 and 3 and raises; the disk is as before. After step 4
the flush is complete in every sense that matters: if the process dies the next
:func:`~tai_core.store.recover` finishes it (see :mod:`tai_core.store._journal`).

Durability. Renames and one fsynced journal make the flush safe against the death of the
process at any instant (DESIGN §4.2). A power loss is harsher: what the kernel had not yet
written is gone, so a committed plan could name staged files whose content or directory
entry never reached the disk, and recovery would have nothing whole to roll forward to.
So by default (``durable``) everything the commit depends on is synced before it: the staged
files, then the directories holding them and those the flush made; after the renames the
target directories are synced before the journal goes. This costs a disk round trip per
file (``benchmarks/durable_flush.py``); ``durable = false`` in ``tai.toml`` trades it back
for speed, keeping the guarantee against a killed process only.

A failure before step 4 (a full disk, a file-size limit) undoes steps 2 and 3 and raises a
:class:`~tai_core.store.FlushError` naming the file and the reason.
"""

from __future__ import annotations

import errno
import hashlib
import os
import secrets
import stat
import time
from collections.abc import Callable
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING

from pyrsistent import PMap, pmap

from tai_core.store._errors import ConflictError, FlushError
from tai_core.store._journal import (
    Entry,
    Journal,
    commit_plan,
    digest,
    journal_path,
    recover_locked,
    remove_plan,
    roll_back,
    temp_key,
    write_plan,
)
from tai_core.store._lock import directory_lock
from tai_core.store._store import Seen, encode
from tai_core.store._sync import fsync_dir

if TYPE_CHECKING:
    from tai_core.store._store import FileStore


def _missing_dirs(root: Path, keys: list[str]) -> tuple[str, ...]:
    """The directories that must be made for ``keys``, parents first."""
    missing: list[str] = []
    for key in keys:
        for directory in accumulate(key.split("/")[:-1], lambda head, part: f"{head}/{part}"):
            if directory not in missing and not (root / directory).is_dir():
                missing.append(directory)
    return tuple(missing)


def _stage(path: Path, data: bytes, mode: int | None, durable: bool) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    with os.fdopen(fd, "wb") as file:
        if mode is not None:
            os.fchmod(fd, mode)
        file.write(data)
        if durable:
            file.flush()
            os.fsync(fd)


def reason(error: OSError) -> str:
    """Why an operation failed, in words (``EFBIG`` names the usual culprit)."""
    if error.errno == errno.EFBIG:
        return "file too large (over the file-size limit: ulimit -f, or the file system's)"
    return error.strerror or str(error)


def _dirs_to_sync(journal: Journal) -> list[str]:
    """The directories that got new entries while staging: the parents of staged files
    and of made directories (``""`` is the working directory), deepest first."""
    made = [*journal.dirs, *(entry.temp for entry in journal.entries if entry.temp)]
    parents = {name.rpartition("/")[0] for name in made}
    return sorted(parents, key=lambda name: (-len(Path(name).parts), name))


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return None


def _no_step(name: str) -> None:
    """Nobody follows the flush's steps."""


def flush_store(
    store: FileStore, *, durable: bool, on_step: Callable[[str], None] | None
) -> FileStore:
    """Write ``store``'s pending edits (see the module docstring); the flushed store."""
    step = on_step or _no_step
    root = store.root
    work = {key: text for key, text in store.overlay.items() if text != store.base[key].text}
    with directory_lock(root):
        recover_locked(root)
        conflicts = tuple(
            sorted(key for key in work if not store.base[key].unchanged_on_disk(root / key))
        )
        if conflicts:
            raise ConflictError(str(root), conflicts)
        if not work:
            return store.flushed(pmap())
        written = _write(root, work, store.base, durable, step)
    return store.flushed(written)


def _stage_and_commit(
    root: Path,
    journal: Journal,
    data: dict[str, bytes | None],
    durable: bool,
    step: Callable[[str], None],
) -> None:
    """Steps 3 and 4: stage, sync when ``durable``, commit; on a failure before the commit,
    roll back and raise a :class:`FlushError` saying what could not be done and why."""
    doing = ""
    try:
        for directory in journal.dirs:
            doing = f"make the directory {directory}"
            (root / directory).mkdir()
        for entry in journal.entries:
            if entry.temp is not None:
                doing = f"stage {entry.path}"
                content = data[entry.path] or b""
                _stage(root / entry.temp, content, _mode(root / entry.path), durable)
                step(f"stage {entry.path}")
        for directory in _dirs_to_sync(journal) if durable else ():
            doing = f"sync the directory {directory or root}"
            fsync_dir(root / directory)
        doing = "commit the flush"
        commit_plan(root, journal)
    except OSError as error:
        if not journal_path(root, journal, ".commit").exists():
            roll_back(root, journal)
            raise FlushError(f"nothing was written: cannot {doing}: {reason(error)}") from None


def _write(
    root: Path,
    work: dict[str, str | None],
    base: PMap[str, Seen],
    durable: bool,
    step: Callable[[str], None],
) -> PMap[str, Seen]:
    flush_id = f"{os.getpid()}-{secrets.token_hex(4)}"
    keys = sorted(work)
    data = {key: None if work[key] is None else encode(work[key]) for key in keys}
    journal = Journal(
        id=flush_id,
        entries=tuple(
            Entry(
                path=key,
                temp=None if data[key] is None else temp_key(key, flush_id),
                old=base[key].digest.hex() if base[key].text is not None else None,
                new=digest(data[key]),
            )
            for key in keys
        ),
        dirs=_missing_dirs(root, [key for key in keys if data[key] is not None]),
    )
    try:
        write_plan(root, journal)
    except OSError as error:
        remove_plan(root, journal, ".prepare")
        raise FlushError(
            f"nothing was written: cannot write the flush journal in {root}: {reason(error)}"
        ) from None
    step("journal")
    _stage_and_commit(root, journal, data, durable, step)
    step("commit")
    failed: list[str] = []
    for entry in journal.entries:
        target = root / entry.path
        try:
            if entry.temp is None:
                target.unlink(missing_ok=True)
            else:
                (root / entry.temp).replace(target)
        except OSError as error:
            failed.append(f"{entry.path}: {reason(error)}")
        step(f"{'delete' if entry.temp is None else 'replace'} {entry.path}")
    if durable:
        for directory in sorted({(root / key).parent for key in keys}):
            try:
                fsync_dir(directory)
            except OSError as error:
                failed.append(f"{directory}: {reason(error)}")
    if failed:
        raise FlushError(
            "flush interrupted ("
            + "; ".join(failed)
            + f"); its journal stays in {root}/.tai-journal and the next start of tai "
            "completes it"
        )
    remove_plan(root, journal, ".commit")
    step("done")
    now = time.time_ns()
    written: dict[str, Seen] = {}
    for key in keys:
        if data[key] is None:
            written[key] = Seen(None)  # an absent file's record has no fingerprint to trust
        else:
            info = (root / key).stat()
            content = data[key]
            written[key] = Seen(
                work[key], info.st_mtime_ns, info.st_size, hashlib.sha256(content).digest(), now
            )
    return pmap(written)
