"""SQLite as tai's databases use it (the records, the sessions): one way to open a file,
one way to write, one way to change a schema.

* **Opened** in autocommit mode (every write opens its own explicit transaction), in WAL
  mode so readers (``tai record``, ``tai sessions``) never wait for a run that writes,
  with ``synchronous = NORMAL`` (in WAL mode a power loss may lose the last commits,
  never the database's integrity), foreign keys on, and a writer waiting up to 10 s for
  another process's lock instead of failing at once.
* **Written** in ``BEGIN IMMEDIATE`` transactions: the write lock is taken when the
  transaction begins, so two processes never deadlock upgrading a read to a write.
* **Migrated** by numbered steps: ``schema_version`` lists the steps a database has had;
  :func:`migrate` runs the missing ones in order, each in the transaction that records it.
  A database written by a newer tai (a step this one does not know) is refused with the
  reason rather than written in a shape that tai does not understand.
* **Read only** when it cannot be written (a read-only mount, a backup, another user's
  files): :func:`open_database` ``read_only`` opens it without changing anything (no
  journal mode, no migration: a database short of steps is refused, since this tai's
  queries expect them), as immutable when even WAL's shared-memory file cannot be made.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from tai_core._time import now

#: Milliseconds a writer waits for another process's lock before failing.
BUSY_TIMEOUT_MS = 10_000


class SchemaTooNew(sqlite3.DatabaseError):
    """The database has schema steps this tai does not know (a newer tai wrote it)."""


def connect(path: Path) -> sqlite3.Connection:
    """Open (and create, with its directory) the database at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA foreign_keys = ON")
    return db


def open_database(
    path: Path, steps: Sequence[str], name: str, *, read_only: bool = False
) -> sqlite3.Connection:
    """The database called ``name`` at ``path``, migrated to ``steps``; ``read_only``:
    opened as it is, which must be at ``steps`` already."""
    if not read_only:
        db = connect(path)
        migrate(db, steps, name)
        return db
    from urllib.parse import quote

    location = f"file:{quote(str(path))}?mode=ro"
    try:
        db = _read_only(location)
    except sqlite3.OperationalError:  # no -shm beside it and no way to make one
        db = _read_only(location + "&immutable=1")
    try:
        done = _version(db)
    except sqlite3.Error:
        db.close()
        raise
    if done != len(steps):
        db.close()
        newer = "a newer tai wrote it" if done > len(steps) else "it cannot be upgraded read only"
        raise SchemaTooNew(
            f"the {name} database has schema version {done}; this tai reads version "
            f"{len(steps)} ({newer})"
        )
    return db


def _read_only(location: str) -> sqlite3.Connection:
    db = sqlite3.connect(location, uri=True, isolation_level=None, check_same_thread=False)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opens the file now
    except sqlite3.Error:
        db.close()
        raise
    return db


def _version(db: sqlite3.Connection) -> int:
    found = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
    ).fetchone()
    if found is None:
        return 0
    (done,) = db.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()
    return int(done)


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction: committed when the block ends, rolled back when it raises."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def migrate(db: sqlite3.Connection, steps: Sequence[str], name: str) -> None:
    """Bring the schema of ``db`` (the database called ``name`` in messages) up to
    ``steps``: step ``n`` (from 1) is the SQL script ``steps[n - 1]``."""
    with transaction(db):
        db.execute(
            "CREATE TABLE IF NOT EXISTS schema_version "
            "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        (done,) = db.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()
    if done > len(steps):
        raise SchemaTooNew(
            f"the {name} database has schema version {done}; this tai knows up to "
            f"{len(steps)} (a newer tai wrote it)"
        )
    for version, script in enumerate(steps[done:], start=done + 1):
        with transaction(db):
            for statement in _statements(script):
                db.execute(statement)
            db.execute(
                "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)", (version, now())
            )


def _statements(script: str) -> list[str]:
    """The statements of ``script`` (``executescript`` would commit the transaction)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    return [s for s in statements if s]
