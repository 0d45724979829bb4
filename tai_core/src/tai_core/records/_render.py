"""Recorded runs as text: the list of runs, one run's transcript, its replies for replay."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from tai_core._table import clock, table
from tai_core.records._store import EventRow, SessionRow


def duration(session: SessionRow) -> str:
    """How long the run took (``-`` while it runs or when it never ended)."""
    if session.end_time is None:
        return "-"
    seconds = (
        datetime.fromisoformat(session.end_time) - datetime.fromisoformat(session.start_time)
    ).total_seconds()
    return f"{seconds:.1f} s"


def _cells(session: SessionRow) -> tuple[str, ...]:
    return (
        str(session.id),
        clock(session.start_time),
        duration(session),
        str(session.rounds),
        session.status,
        session.command,
        session.model,
        session.cwd,
    )


def session_list(sessions: Sequence[SessionRow]) -> str:
    """The runs as a table, one line each (as given: newest first)."""
    header = ("ID", "STARTED", "TOOK", "ROUNDS", "STATUS", "COMMAND", "MODEL", "DIRECTORY")
    return table(header, [_cells(session) for session in sessions], right={0, 2, 3})


def transcript(session: SessionRow, events: Sequence[EventRow]) -> str:
    """One run as text: a header, then each row as ``--- round R [type] time ---`` and its
    detail (rows before the first round are ``--- context [type] time ---``)."""
    ended = f", ended {clock(session.end_time)}" if session.end_time else ""
    lines = [
        f"session {session.id}: tai {session.command} with {session.model} in {session.cwd}",
        f"started {clock(session.start_time)}{ended} ({duration(session)}), "
        f"{session.rounds} round(s), status {session.status}",
    ]
    if session.error:
        lines.append(f"error: {session.error}")
    for event in events:
        where = f"round {event.round}" if event.round else "context"
        lines.append(f"--- {where} [{event.type}] {clock(event.time)} ---")
        lines.append(event.detail.rstrip("\n"))
    return "\n".join(lines) + "\n"
