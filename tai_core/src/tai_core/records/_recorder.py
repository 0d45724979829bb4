"""The recorder: a client of the event bus that turns one session's events into rows.

Rows are kept in memory and written when a round begins (the previous round is complete
then: its reply, its blocks and their results) and when the run ends — one transaction per
round. A reply's text and thoughts arrive in many pieces; each becomes one row, filled
piece by piece, in the place its first piece arrived. Tree snapshots are not stored (each is
the whole tree); the outline of the last one is, when the run ends.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import attrs

from tai_core._time import now
from tai_core.blocks import Block
from tai_core.records._store import EventRow, RecordStore, records_path
from tai_core.runtime import (
    BlockFinished,
    BlockParsed,
    Event,
    Notice,
    ParseFailed,
    RoundEnded,
    RoundStarted,
    RunCancelled,
    RunFailed,
    RunFinished,
    SessionStarted,
    Subscription,
    TextReceived,
    ThoughtReceived,
    TreeChanged,
    UsageReported,
)
from tai_core.tree import Node, NodeKind, SessionTree, outline

#: Row types (blocks are ``block_<kind>``, kindless blocks ``block_unknown``).
SYSTEM_PROMPT = "system_prompt"
USER = "user"
ROUND_START = "round_start"
THOUGHT = "thought"
TEXT = "text"
BLOCK_PREFIX = "block_"
PARSE_ERROR = "parse_error"
BLOCK_RESULT = "block_result"
USAGE = "usage"
FINISH = "finish"
NOTICE = "notice"
HANDOFF = "handoff"
ROUND_END = "round_end"
OUTLINE = "outline"
RUN_FINISHED = "run_finished"
RUN_FAILED = "run_failed"
RUN_CANCELLED = "run_cancelled"
#: A run that ended before its first request: its context could not be collected.
CONTEXT_FAILED = "context_failed"
REPORT = "report"
DIFF = "diff"

Warn = Callable[[str], None]

#: The events on which the recorder writes (the session row, a round, the end).
_WRITING_EVENTS = (SessionStarted, RoundStarted, RunFinished, RunFailed, RunCancelled)


def _warn_on_stderr(message: str) -> None:
    sys.stderr.write(f"tai: warning: {message}\n")


def block_header(block: Block) -> str:
    """A block's header as recorded: ``kind(name="value", …)``, values JSON-quoted."""
    params = ", ".join(
        f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in block.params.items()
    )
    return f"{block.kind or 'unknown'}({params}) delimiter={block.delimiter}"


def usage_detail(event: UsageReported) -> str:
    """``input=N cache_read=N cache_write=N output=N reasoning=N`` and the cost when known."""
    counts = " ".join(f"{key}={value}" for key, value in attrs.asdict(event.usage).items())
    return counts if event.cost is None else f"{counts} cost={event.cost:.6f}"


def _recent_events(tree: SessionTree | None) -> list[Node]:
    """The tree's bookkeeping events since the newest attempt's ``finish`` event, that one
    included (the finish reason and any handoff note are not published as events)."""
    events: list[Node] = []
    for node in reversed(tree.root.children if tree is not None else ()):
        if node.kind is NodeKind.EVENT:
            events.insert(0, node)
            if node.attrs.get("event") == "finish":
                break
    return events


def _last_finish(tree: SessionTree | None) -> str:
    events = _recent_events(tree)
    finish = events[0] if events and events[0].attrs.get("event") == "finish" else None
    return finish.attrs.get("finish", "") if finish is not None else ""


def _handoffs(tree: SessionTree | None) -> list[str]:
    return [node.body for node in _recent_events(tree) if node.attrs.get("event") == "handoff"]


@attrs.define
class _Pending:
    """A row still being filled (a reply's text arrives in pieces)."""

    round: int
    time: str
    type: str
    parts: list[str] = attrs.Factory(list)

    def row(self) -> EventRow:
        return EventRow(self.round, self.time, self.type, "".join(self.parts))


class Recorder:
    """Records one session into a :class:`RecordStore`; failures become warnings.

    Feed it events with :meth:`take` (or let :meth:`follow` read a subscription); it
    returns ``True`` at the event that ends the run.
    """

    def __init__(
        self, store: RecordStore, *, cwd: Path, system: str, user: str,
        warn: Warn | None = None, invocation: str | None = None,
    ) -> None:  # fmt: skip
        self._store: RecordStore | None = store
        self._cwd = cwd
        #: The tai command this run is part of (its other goal loops or chat turns).
        self._invocation = invocation
        self._warn = warn or _warn_on_stderr
        self._session: int | None = None
        self._round = 0
        self._rows: list[_Pending] = [
            _Pending(0, now(), SYSTEM_PROMPT, [system]),
            _Pending(0, now(), USER, [user]),
        ]
        self._text: _Pending | None = None
        self._thought: _Pending | None = None
        self._tree: SessionTree | None = None

    @classmethod
    def open(
        cls,
        *,
        cwd: Path,
        system: str,
        user: str,
        path: Path | None = None,
        warn: Warn | None = None,
        invocation: str | None = None,
    ) -> Recorder | None:
        """A recorder on the database at ``path`` (default: the user's records database),
        or ``None`` after a warning when it cannot be opened; ``invocation`` names the tai
        command the run is part of (the same for all its goal loops or chat turns)."""
        try:
            store = RecordStore(path or records_path())
        except (sqlite3.Error, OSError) as error:
            (warn or _warn_on_stderr)(f"not recording: {error}")
            return None
        return cls(store, cwd=cwd, system=system, user=user, warn=warn, invocation=invocation)

    @property
    def session(self) -> int | None:
        """The recorded session's id, once it began."""
        return self._session

    async def follow(self, subscription: Subscription, session_id: str) -> None:
        """Record the events of session ``session_id`` until its run ends; the events that
        write are taken in a worker thread, so a slow disk or another writer's lock never
        holds up the event loop (and with it the run)."""
        try:
            async for event in subscription:
                if getattr(event, "session_id", None) != session_id:
                    continue
                if isinstance(event, _WRITING_EVENTS):
                    ended = await asyncio.to_thread(self.take, event)
                else:
                    ended = self.take(event)
                if ended:
                    return
        finally:
            subscription.close()
            self.close()

    def close(self) -> None:
        """Close the database (what is not written by now is not recorded)."""
        if self._store is not None:
            self._store.close()
            self._store = None

    def _write(self, action: Callable[[RecordStore], None]) -> None:
        if self._store is None:
            return
        try:
            action(self._store)
        except (sqlite3.Error, OSError) as error:
            self._warn(f"recording stopped: {error}")
            self.close()

    def _add(self, type_: str, detail: str, round_no: int | None = None) -> _Pending:
        pending = _Pending(self._round if round_no is None else round_no, now(), type_, [detail])
        self._rows.append(pending)
        return pending

    def _taken_rows(self) -> list[EventRow]:
        rows = [pending.row() for pending in self._rows]
        self._rows = []
        self._text = self._thought = None
        return rows

    def take(self, event: Event) -> bool:
        """Record ``event``; ``True`` when it ended the run (everything is written then)."""
        if isinstance(event, SessionStarted):
            self._begin(event)
        elif isinstance(event, RoundStarted):
            for note in _handoffs(self._tree):
                self._add(HANDOFF, note)
            self._flush()
            self._round = event.round
            self._add(ROUND_START, f"attempt {event.attempt}")
        elif isinstance(event, TextReceived):
            self._text = self._text or self._add(TEXT, "", event.round)
            self._text.parts.append(event.text)
        elif isinstance(event, ThoughtReceived):
            self._thought = self._thought or self._add(THOUGHT, "", event.round)
            self._thought.parts.append(event.text)
        elif isinstance(event, BlockParsed):
            block = event.block
            detail = f"{block_header(block)}\n{block.body}"
            self._add(BLOCK_PREFIX + (block.kind or "unknown"), detail, event.round)
        elif isinstance(event, ParseFailed):
            self._add(PARSE_ERROR, event.error.message(), event.round)
        elif isinstance(event, BlockFinished):
            status = "ok" if event.result.ok else "failed"
            detail = f"{event.block.kind} {status}\n{event.result.text}"
            self._add(BLOCK_RESULT, detail, event.round)
        elif isinstance(event, UsageReported):
            self._add(USAGE, usage_detail(event), event.round)
        elif isinstance(event, Notice):
            self._add(NOTICE, f"{event.level}: {event.message}")
        elif isinstance(event, RoundEnded):
            self._add(FINISH, _last_finish(self._tree), event.round)
            self._add(ROUND_END, event.outcome, event.round)
            self._text = self._thought = None
        elif isinstance(event, TreeChanged):
            self._tree = event.tree
        elif isinstance(event, RunFinished | RunFailed | RunCancelled):
            self._end(event)
            return True
        return False

    def context_failed(self, command: str, model: str, message: str) -> None:
        """Record a run that ended before it began: the context could not be collected
        (``message`` says why); the recorded run has no rounds and status ``error``."""
        self._add(CONTEXT_FAILED, message)
        rows = self._taken_rows()

        def record(store: RecordStore) -> None:
            session = store.begin(command, model, str(self._cwd), rows[0].time,
                                  invocation=self._invocation)  # fmt: skip
            store.end(session, rows, status="error", end_time=now(), error=message)
            self._session = session

        self._write(record)
        self.close()

    def _begin(self, event: SessionStarted) -> None:
        rows = self._taken_rows()

        def begin(store: RecordStore) -> None:
            self._session = store.begin(
                event.command, event.model, str(self._cwd), rows[0].time, rows,
                invocation=self._invocation,
            )  # fmt: skip

        self._write(begin)

    def _flush(self) -> None:
        rows = self._taken_rows()
        session = self._session
        if session is not None:
            self._write(lambda store: store.append(session, rows))

    def _end(self, event: RunFinished | RunFailed | RunCancelled) -> None:
        error: str | None = None
        if self._tree is not None:
            self._add(OUTLINE, outline(self._tree))
        if isinstance(event, RunFinished):
            status = "success"
            self._add(RUN_FINISHED, event.summary or "finished")
            self._add(DIFF, event.diff)
        elif isinstance(event, RunFailed):
            status, error = "error", event.message
            self._add(RUN_FAILED, event.message)
        else:
            status = "cancelled"
            self._add(RUN_CANCELLED, "cancelled")
        self._add(REPORT, event.report)
        rows = self._taken_rows()
        session = self._session
        if session is not None:
            self._write(
                lambda store: store.end(session, rows, status=status, end_time=now(), error=error)
            )
