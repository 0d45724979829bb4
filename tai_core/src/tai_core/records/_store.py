"""The records database: two tables in one SQLite file, written a round at a time.

``sessions`` has a row per recorded run (its status is ``running`` until the run ends, so a
run killed halfway stays visible as such) and names the tai command it was part of
(``invocation``: the goal loops of one ``tai chat``, the turns of one ``tai ai``; empty in
rows recorded before it was kept); ``events`` has the run's rows in order. Every
write is one explicit transaction: :meth:`RecordStore.begin` commits the session row with
its first rows, :meth:`RecordStore.append` commits a batch (a round), :meth:`RecordStore.end`
commits the last batch together with the final status. Opened, written and migrated as
all of tai's databases are (:mod:`tai_core._sqlite`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from sqlite3 import Connection

import attrs

from tai_core._sqlite import open_database, transaction

#: File name of the records database in tai's data directory.
DATABASE_NAME = "tai-records.db"
#: The statuses of a recorded run.
STATUSES = ("running", "success", "error", "cancelled")

#: The schema's steps (:func:`tai_core._sqlite.migrate`). The first one creates what
#: databases made before the steps were counted already hold, hence ``IF NOT EXISTS``.
_STEPS = (
    f"""
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    command TEXT NOT NULL,
    model TEXT NOT NULL,
    cwd TEXT NOT NULL,
    start_time TEXT NOT NULL,
    end_time TEXT,
    status TEXT NOT NULL CHECK (status IN {STATUSES!r}),
    error TEXT
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    round INTEGER NOT NULL,
    time TEXT NOT NULL,
    type TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_session ON events (session_id, id);
""",
    "ALTER TABLE sessions ADD COLUMN invocation TEXT;",
)


@attrs.frozen
class EventRow:
    """One row of a run: ``round`` is 0 for what precedes the first round."""

    round: int
    time: str
    type: str
    detail: str


@attrs.frozen
class SessionRow:
    """One recorded run; ``rounds`` is the highest round it reached."""

    id: int
    command: str
    model: str
    cwd: str
    start_time: str
    end_time: str | None
    status: str
    error: str | None
    rounds: int


class RecordStore:
    """An open records database (created with its schema when missing)."""

    def __init__(self, path: Path) -> None:
        # The recorder writes from worker threads, one call at a time.
        self._db = open_database(path, _STEPS, "records")

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    @staticmethod
    def _insert(db: Connection, session: int, rows: Sequence[EventRow]) -> None:
        db.executemany(
            "INSERT INTO events (session_id, round, time, type, detail) VALUES (?, ?, ?, ?, ?)",
            [(session, r.round, r.time, r.type, r.detail) for r in rows if r.detail],
        )

    def begin(
        self, command: str, model: str, cwd: str, start_time: str,
        rows: Sequence[EventRow] = (), *, invocation: str | None = None,
    ) -> int:  # fmt: skip
        """Record a new running session with its first ``rows``, as part of the tai
        command ``invocation``; its id."""
        with transaction(self._db) as db:
            cursor = db.execute(
                "INSERT INTO sessions (command, model, cwd, start_time, status, invocation) "
                "VALUES (?, ?, ?, ?, 'running', ?)",
                (command, model, cwd, start_time, invocation),
            )
            session = cursor.lastrowid
            assert session is not None
            self._insert(db, session, rows)
        return session

    def append(self, session: int, rows: Sequence[EventRow]) -> None:
        """Add ``rows`` (those with an empty detail are dropped) in one transaction."""
        if any(row.detail for row in rows):
            with transaction(self._db) as db:
                self._insert(db, session, rows)

    def end(
        self,
        session: int,
        rows: Sequence[EventRow],
        *,
        status: str,
        end_time: str,
        error: str | None = None,
    ) -> None:
        """Add the last ``rows`` and set the final status, in one transaction."""
        with transaction(self._db) as db:
            self._insert(db, session, rows)
            db.execute(
                "UPDATE sessions SET status = ?, end_time = ?, error = ? WHERE id = ?",
                (status, end_time, error, session),
            )

    _SESSION_COLUMNS = (
        "SELECT s.id, s.command, s.model, s.cwd, s.start_time, s.end_time, s.status, s.error, "
        "(SELECT coalesce(max(e.round), 0) FROM events e WHERE e.session_id = s.id) "
        "FROM sessions s"
    )

    def sessions(self, limit: int) -> list[SessionRow]:
        """The ``limit`` newest sessions, newest first."""
        query = f"{self._SESSION_COLUMNS} ORDER BY s.id DESC LIMIT ?"
        return [SessionRow(*row) for row in self._db.execute(query, (limit,))]

    def session(self, session: int) -> SessionRow | None:
        """Session ``session``, or ``None`` when there is none."""
        row = self._db.execute(f"{self._SESSION_COLUMNS} WHERE s.id = ?", (session,)).fetchone()
        return SessionRow(*row) if row else None

    def runs_of_the_command(self, session: int) -> list[int]:
        """The recorded runs of the tai command that ran ``session``, in order (itself
        alone when it names none)."""
        query = (
            "SELECT id FROM sessions WHERE invocation = "
            "(SELECT invocation FROM sessions WHERE id = ?) ORDER BY id"
        )
        return [row[0] for row in self._db.execute(query, (session,))] or [session]

    def events(self, session: int) -> list[EventRow]:
        """The rows of session ``session``, in the order they were recorded."""
        query = "SELECT round, time, type, detail FROM events WHERE session_id = ? ORDER BY id"
        return [EventRow(*row) for row in self._db.execute(query, (session,))]


def records_path() -> Path:
    """Where the records database lives: in tai's data directory (what tai writes stays
    apart from the configuration, which is read-only inside the sandbox)."""
    from tai_core.config import user_data_dir

    return user_data_dir() / DATABASE_NAME
