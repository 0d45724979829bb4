"""The flush: a round's pending edits reach the disk all together or not at all.

Under the directory lock (one flush per directory at a time), after ending any flush a dead
process left behind:

1. every file to write or delete is checked against what tai read: one that someone else
   changed is a :class:`~tai_core.store.ConflictError` and nothing is written;
2. the plan is written to the journal and fsynced;
3. missing directories are made and each new content is staged as a temporary file in its
   target's directory (same file system, so the final rename is atomic), with the target's
   permission bits;
4. the plan is committed (one atomic rename of the journal file);
5. each staged file is renamed over its target, each deleted file unlinked;
6. the journal is removed.

A failure before step 4 undoes steps 2 and 3 and raises; the disk is as before. After step 4
the flush is complete in every sense that matters: if the process dies the next
:func:`~tai_core.store.recover` finishes it (see :mod:`tai_core.store._journal`).

Cost. Renames and one fsynced journal make the flush safe against the death of the process
at any instant, which is the invariant (DESIGN §4.2), for little more than writing the files.
Surviving a power loss as well needs every staged file and directory fsynced, which costs
a disk round trip per file: ``durable=True`` asks for it.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pyrsistent import PMap, pmap

from tai_core.store._errors import ConflictError, FlushError
from tai_core.store._journal import (
    Entry,
    Journal,
    commit_plan,
    digest,
    fsync_dir,
    recover_locked,
    remove_plan,
    roll_back,
    temp_key,
    write_plan,
)
from tai_core.store._lock import directory_lock
from tai_core.store._store import Seen, encode

if TYPE_CHECKING:
    from tai_core.store._store import FileStore


def _missing_dirs(root: Path, keys: list[str]) -> tuple[str, ...]:
    """The directories that must be made for ``keys``, parents first."""
    missing: list[str] = []
    for key in keys:
        parts = key.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            directory = "/".join(parts[:depth])
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


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return None


def flush_store(
    store: FileStore, *, durable: bool, on_step: Callable[[str], None] | None
) -> FileStore:
    """Write ``store``'s pending edits (see the module docstring); the flushed store."""
    step = on_step or (lambda name: None)
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
    write_plan(root, journal)
    step("journal")
    try:
        for directory in journal.dirs:
            (root / directory).mkdir()
        for entry in journal.entries:
            if entry.temp is not None:
                _stage(root / entry.temp, data[entry.path], _mode(root / entry.path), durable)
                step(f"stage {entry.path}")
    except OSError as error:
        roll_back(root, journal)
        raise FlushError(f"nothing was written: cannot stage {error.filename}: {error}") from None
    commit_plan(root, journal)
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
            failed.append(f"{entry.path}: {error.strerror}")
        step(f"{'delete' if entry.temp is None else 'replace'} {entry.path}")
    if durable:
        for directory in sorted({(root / key).parent for key in keys}):
            fsync_dir(directory)
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
            written[key] = Seen(None, read_ns=now)
        else:
            info = (root / key).stat()
            content = data[key]
            written[key] = Seen(
                work[key], info.st_mtime_ns, info.st_size, hashlib.sha256(content).digest(), now
            )
    return pmap(written)
