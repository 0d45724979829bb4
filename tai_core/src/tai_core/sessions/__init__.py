"""Sessions: what a conversation with the model was, kept so that it can go on later.

Why SQLite, and why its own database
    A session is written after each completed turn and on close, and read back by
    ``tai sessions``, ``tai ai -resume`` and any client of the runtime; SQLite gives that
    in one file with transactions, in WAL mode so a reader never waits for a writer, and
    in the standard library. It lives in tai's data directory beside the records
    database (``tai-records.db``, written by ``-record``): the two are written at
    different times by different clients of the runtime (a record is what a run showed,
    row by row; a session is what a conversation holds, to be continued), so each has its
    own file and its own numbered schema steps, opened, written and migrated the same way
    (:mod:`tai_core._sqlite`). ``docs/sessions.md`` documents both.

The invariant
    A crash loses at most the turn in progress: a turn's messages and tree nodes are
    written in the transaction that ends it, never half. A session killed mid-turn stays
    ``streaming``, which is how it is recognised afterwards.

* ``_store`` — the database: schema, incremental saves, reads, deletion;
* ``_export`` — a session as JSON lines.

This package imports ``sqlite3``; commands import it only when they save or read
sessions, so ``tai --help`` never loads it.
"""

from tai_core.sessions._export import EXPORT_VERSION, export_lines
from tai_core.sessions._store import (
    DATABASE_NAME,
    STATUSES,
    SessionDamaged,
    SessionExists,
    SessionHeader,
    SessionNotFound,
    SessionStore,
    StoredSession,
    sessions_path,
)

__all__ = [
    "DATABASE_NAME",
    "EXPORT_VERSION",
    "STATUSES",
    "SessionDamaged",
    "SessionExists",
    "SessionHeader",
    "SessionNotFound",
    "SessionStore",
    "StoredSession",
    "export_lines",
    "sessions_path",
]
