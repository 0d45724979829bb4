"""Records: every round, block and event of a run, kept in SQLite for later reading.

Why a client of the event bus
    The pipeline never writes records. The :class:`Recorder` subscribes to the runtime's
    :class:`~tai_core.runtime.EventBus` like the printer does, so a record holds exactly
    what a user could see, in the same order, and recording can neither slow a run down
    (publishing never waits; a recorder that falls behind only receives larger merged text
    pieces) nor fail it: a database that cannot be opened or written is a warning, and the
    run goes on unrecorded.

Why one transaction per round
    SQLite's cost is in the commit (a sync to disk), not in the rows. Rows are collected in
    memory and committed together when the next round begins — the previous round is then
    complete: its reply, its blocks and their results — and when the run ends, with its
    final status. A reply streamed in thousands of pieces is one ``text`` row. The database
    is in WAL mode so ``tai record`` can read while runs write, and waits up to 10 s for
    another writer's lock — in a worker thread, so the wait never stalls the event loop the
    run streams on. A run that dies keeps ``running`` as its status and loses at most the
    round in progress.

* ``_store`` — the database: schema, writes, queries;
* ``_recorder`` — events into rows;
* ``_render`` — a run list and a transcript as text;
* ``_replay`` — a recorded run's replies in the replay provider's format.

This package imports ``sqlite3``; commands import it only when they record or read
records, so ``tai --help`` never loads it.
"""

from tai_core.records._recorder import Recorder
from tai_core.records._render import session_list, transcript
from tai_core.records._replay import ReplayError, replay_script, runs_named
from tai_core.records._store import (
    DATABASE_NAME,
    EventRow,
    RecordStore,
    SessionRow,
    records_path,
)

__all__ = [
    "DATABASE_NAME",
    "EventRow",
    "RecordStore",
    "Recorder",
    "ReplayError",
    "SessionRow",
    "records_path",
    "replay_script",
    "runs_named",
    "session_list",
    "transcript",
]
