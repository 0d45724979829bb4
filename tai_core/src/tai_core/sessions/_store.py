"""The sessions database: a row per session, its messages and its tree's nodes.

A session is saved in one transaction (:meth:`SessionStore.save`), and a save writes only
what changed since the last one: the messages after the first that differs from what was
saved (a conversation grows at its end; a reset or a plugin that removes messages rewrites
from there), and the tree's new nodes (a tree's nodes never change once written, so a
node saved once is saved for good; a tree that lost a saved node — a reset — is written
again whole). A save after a turn therefore costs that turn's size, not the session's.

The database lies in tai's data directory, which the sandbox leaves writable, so a model's
command could rewrite a session — put words in the user's mouth — for a later ``tai ai
-resume`` to send as the user's. So every save seals the session: an HMAC under tai's key
(:func:`tai_core.store._key.mac`, hidden inside the sandbox) of what a resumed session
sends — its command, provider, model, directory, system prompt and parameters, every
message and every node. :meth:`SessionStore.load` refuses a session whose seal does not
check (``require_seal``); ``tai sessions show`` and ``export`` print it with a warning. A
save compares what it writes with what the database holds and rewrites from the first row
that differs, so a seal never covers rows tai did not write.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from sqlite3 import Connection
from typing import Any

import attrs

from tai_core._sqlite import open_database, transaction
from tai_core.models import Message
from tai_core.tree import ROOT_NAME, Node, NodeSpec, SessionTree, TreeWriteRejected

#: File name of the sessions database in tai's data directory.
DATABASE_NAME = "tai-sessions.db"
#: A session's status: ``idle`` between turns, ``streaming`` while a turn runs (a session
#: left so was ended by a crash or a kill mid-turn), ``error`` after a failed turn,
#: ``closed`` once closed.
STATUSES = ("idle", "streaming", "error", "closed")

_STEPS = (
    f"""
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    command TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    cwd TEXT NOT NULL,
    system_prompt TEXT NOT NULL,
    parameters TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN {STATUSES!r}),
    last_error TEXT,
    rounds INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cost REAL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX sessions_by_update ON sessions (updated_at);
CREATE INDEX sessions_by_cwd ON sessions (cwd, updated_at);
CREATE TABLE messages (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE nodes (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    name TEXT NOT NULL,
    parent TEXT NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    attrs TEXT NOT NULL,
    PRIMARY KEY (session_id, seq),
    UNIQUE (session_id, name)
);
""",
    "ALTER TABLE sessions ADD COLUMN seal TEXT NOT NULL DEFAULT '';",
)
#: The purpose of the sessions' seals (a key of its own, derived from tai's).
PURPOSE = "session"


class SessionNotFound(LookupError):
    """No session has the id asked for."""


class SessionExists(ValueError):
    """A new session was to be saved under the id of a kept one (which stays as it was)."""


class SessionDamaged(ValueError):
    """A stored session cannot be read back (its tree breaks the tree's rules), or may not
    be: its seal does not check (changed outside tai, or saved by a tai that did not seal)."""


def _first_line(text: str | None) -> str:
    """The first non-blank line of ``text``, stripped (``""`` for none)."""
    return next((line.strip() for line in (text or "").splitlines() if line.strip()), "")


@attrs.frozen
class SessionHeader:
    """What a session is, without its messages and tree (a row of ``tai sessions``)."""

    id: str
    command: str
    provider: str
    model: str
    cwd: str
    system_prompt: str
    #: The model call's parameters (``temperature``, ``max_output_tokens``,
    #: ``reasoning_effort``), those set.
    parameters: Mapping[str, Any]
    status: str
    created_at: str
    updated_at: str
    last_error: str | None = None
    rounds: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    #: How many messages it holds (set when read from the database).
    messages: int = 0
    #: The first line of its first input, what it was asked (set when listed).
    task: str = ""


@attrs.frozen
class StoredSession:
    """A session as saved: its header, its conversation and its tree."""

    header: SessionHeader
    messages: tuple[Message, ...]
    tree: SessionTree = attrs.field(eq=False)
    #: Whether its seal checked: what it holds is what tai saved.
    sealed: bool = True


#: What is saved of a node: its parent's name, kind, body and attributes.
_NodeFacts = tuple[str, str, str, Mapping[str, str]]


@attrs.define
class _Saved:
    """What the database holds of one session, as this process last wrote or read it."""

    messages: tuple[Message, ...]
    nodes: dict[str, _NodeFacts]
    next_node: int


_HEADER_COLUMNS = (
    "id, command, provider, model, cwd, system_prompt, parameters, status, created_at, "
    "updated_at, last_error, rounds, input_tokens, output_tokens, cost"
)


def _seal(
    header: SessionHeader, messages: tuple[Message, ...], nodes: dict[str, _NodeFacts]
) -> str:
    """The seal of a session as a resumed one would send it (see the module docstring);
    ``""`` when tai's key cannot be read (then nothing is trusted)."""
    from tai_core.store import FlushError
    from tai_core.store._key import mac

    document = [
        [header.id, header.command, header.provider, header.model, header.cwd,
         header.system_prompt, json.dumps(dict(header.parameters), sort_keys=True)],
        [[message.role, message.text] for message in messages],
        [[name, parent, str(kind), body, json.dumps(dict(attributes), sort_keys=True)]
         for name, (parent, kind, body, attributes) in nodes.items()],
    ]  # fmt: skip
    try:
        return mac(json.dumps(document).encode(), PURPOSE)
    except FlushError:
        return ""


def _checks(seal: str, expected: str) -> bool:
    return bool(seal) and hmac.compare_digest(seal, expected)


def _header(row: tuple[Any, ...]) -> SessionHeader:
    values = list(row)
    try:
        values[6] = dict(json.loads(values[6]))
    except (ValueError, TypeError):
        raise SessionDamaged(f"session {values[0]!r} has unreadable parameters") from None
    return SessionHeader(*values)


class SessionStore:
    """An open sessions database (created with its schema when missing; ``read_only``: as
    it is, for reading: :func:`tai_core._sqlite.open_database`). One connection,
    used by one thread at a time."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        self.path = path
        self._db = open_database(path, _STEPS, "sessions", read_only=read_only)
        self._saved: dict[str, _Saved] = {}
        #: Ids of new sessions refused because a kept one had the id: not written until
        #: that id is loaded or deleted here.
        self._refused: set[str] = set()

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    # -- writing -------------------------------------------------------------------------

    def save(
        self, header: SessionHeader, messages: tuple[Message, ...], tree: SessionTree,
        *, new: bool = False,
    ) -> None:  # fmt: skip
        """Write the session ``header`` describes, with ``messages`` and ``tree``, in one
        transaction (only what changed since the last save of it). A ``new`` session (its
        first save, not one loaded from here) never replaces a kept one of the same id:
        :class:`SessionExists`, and its later saves are dropped until that id is loaded or
        deleted through this store."""
        if header.id in self._refused:
            return
        with transaction(self._db) as db:
            if new and self._exists(db, header.id):
                self._refused.add(header.id)
                raise SessionExists(
                    f"a kept session {header.id!r} exists already (this one is not kept: "
                    "load that id to continue it, or start with another id)"
                )
            saved = self._saved.get(header.id) or self._read_saved(db, header.id)
            self._upsert(db, header)
            kept = _common_prefix(saved.messages, messages)
            db.execute("DELETE FROM messages WHERE session_id = ? AND seq >= ?", (header.id, kept))
            db.executemany(
                "INSERT INTO messages (session_id, seq, role, content) VALUES (?, ?, ?, ?)",
                [(header.id, seq, m.role, m.text) for seq, m in enumerate(messages) if seq >= kept],
            )
            walked = {node.name: (parent, node) for parent, node in _walk(tree)}
            if any(_changed(facts, walked.get(name)) for name, facts in saved.nodes.items()):
                # not a later version of the saved tree (a reset): written again whole
                db.execute("DELETE FROM nodes WHERE session_id = ?", (header.id,))
                saved = _Saved(saved.messages, {}, 0)
            added = [(n, p, node) for n, (p, node) in walked.items() if n not in saved.nodes]
            db.executemany(
                "INSERT INTO nodes (session_id, seq, name, parent, kind, body, attrs) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (header.id, saved.next_node + offset, name, parent, str(node.kind),
                     node.body, json.dumps(dict(node.attrs)))
                    for offset, (name, parent, node) in enumerate(added)
                ],
            )  # fmt: skip
            nodes = saved.nodes | {n: (p, node.kind, node.body, node.attrs) for n, p, node in added}
            db.execute(
                "UPDATE sessions SET seal = ? WHERE id = ?",
                (_seal(header, messages, nodes), header.id),
            )
        self._saved[header.id] = _Saved(messages, nodes, saved.next_node + len(added))

    @staticmethod
    def _exists(db: Connection, session_id: str) -> bool:
        found = db.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return found is not None

    def _upsert(self, db: Connection, header: SessionHeader) -> None:
        values = tuple(  # the stored columns (not the counts a listing adds)
            json.dumps(dict(header.parameters))
            if column == "parameters"
            else getattr(header, column)
            for column in _HEADER_COLUMNS.split(", ")
        )
        placeholders = ", ".join("?" * len(values))
        updates = ", ".join(
            f"{column} = excluded.{column}"
            for column in _HEADER_COLUMNS.split(", ")
            if column not in ("id", "created_at")
        )
        db.execute(
            f"INSERT INTO sessions ({_HEADER_COLUMNS}) VALUES ({placeholders}) "
            f"ON CONFLICT (id) DO UPDATE SET {updates}",
            values,
        )

    def _read_saved(self, db: Connection, session_id: str) -> _Saved:
        """What the database holds of a session this process has not written yet."""
        messages = tuple(
            Message(role, content)
            for role, content in db.execute(
                "SELECT role, content FROM messages WHERE session_id = ? ORDER BY seq",
                (session_id,),
            )
        )
        nodes: dict[str, _NodeFacts] = {  # in the order written
            name: (parent, kind, body, attributes)
            for name, parent, kind, body, attributes in _node_rows(db, session_id)
        }
        (top,) = db.execute(
            "SELECT coalesce(max(seq) + 1, 0) FROM nodes WHERE session_id = ?", (session_id,)
        ).fetchone()
        return _Saved(messages, nodes, top)

    def delete(self, session_id: str) -> None:
        """Remove a session with its messages and nodes; :class:`SessionNotFound` when
        there is none."""
        with transaction(self._db) as db:
            if not db.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount:
                raise SessionNotFound(f"no session {session_id!r}")
        self._saved.pop(session_id, None)
        self._refused.discard(session_id)

    # -- reading -------------------------------------------------------------------------

    def list(self, limit: int, cwd: str | None = None) -> list[SessionHeader]:
        """The ``limit`` sessions updated last (of directory ``cwd`` when given), newest
        first; their system prompts are left out (``""``: :meth:`header` has it)."""
        where, arguments = ("WHERE s.cwd = ?", [cwd]) if cwd is not None else ("", [])
        columns = [
            "''" if column == "system_prompt" else f"s.{column}"
            for column in _HEADER_COLUMNS.split(", ")
        ]
        query = (
            f"SELECT {', '.join(columns)}, "
            "(SELECT count(*) FROM messages m WHERE m.session_id = s.id), "
            "(SELECT n.body FROM nodes n WHERE n.session_id = s.id AND n.kind = 'user-input' "
            "ORDER BY n.seq LIMIT 1) "
            f"FROM sessions s {where} ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?"
        )
        return [
            attrs.evolve(_header(row[:-2]), messages=row[-2], task=_first_line(row[-1]))
            for row in self._db.execute(query, [*arguments, limit])
        ]

    def ids_starting(self, prefix: str) -> list[str]:
        """The ids of the sessions whose id starts with ``prefix``, in order."""
        query = "SELECT id FROM sessions WHERE substr(id, 1, ?) = ? ORDER BY id"
        return [found for (found,) in self._db.execute(query, (len(prefix), prefix))]

    def header(self, session_id: str) -> SessionHeader:
        """The header of a session; :class:`SessionNotFound` when there is none."""
        row = self._db.execute(
            f"SELECT {_HEADER_COLUMNS}, (SELECT count(*) FROM messages WHERE session_id = id) "
            "FROM sessions WHERE id = ?",
            (session_id,),
        ).fetchone()
        if row is None:
            raise SessionNotFound(f"no session {session_id!r}")
        return attrs.evolve(_header(row[:-1]), messages=row[-1])

    def load(self, session_id: str, *, require_seal: bool = True) -> StoredSession:
        """A whole session; :class:`SessionNotFound` when there is none,
        :class:`SessionDamaged` when its tree cannot be rebuilt or, with ``require_seal``
        (what resuming needs), when its seal does not check — without it, the session
        comes back with ``sealed`` false (to print, never to send)."""
        header = self.header(session_id)
        (seal,) = self._db.execute(
            "SELECT seal FROM sessions WHERE id = ?", (session_id,)
        ).fetchone()
        try:
            saved = self._read_saved(self._db, session_id)
            specs = [
                NodeSpec(kind, body=body, name=name, parent=parent, attrs=attributes)
                for name, (parent, kind, body, attributes) in saved.nodes.items()
            ]
            tree, _ = SessionTree().add_batch(specs)
        except (TreeWriteRejected, ValueError, TypeError) as error:
            raise SessionDamaged(f"session {session_id!r} cannot be read back: {error}") from None
        sealed = _checks(seal, _seal(header, saved.messages, saved.nodes))
        if not sealed and require_seal:
            raise SessionDamaged(
                f"session {session_id!r} does not carry tai's seal: it was changed outside "
                "tai (or saved by a tai that did not seal sessions), so it is not resumed; "
                "`tai sessions show` prints it"
            )
        if sealed:
            self._saved[session_id] = saved
            self._refused.discard(session_id)
        return StoredSession(header, saved.messages, tree, sealed)

    def node_rows(self, session_id: str) -> Iterator[tuple[str, str, str, str, Any]]:
        """``(name, parent, kind, body, attrs)`` of a session's nodes, in the order written."""
        return _node_rows(self._db, session_id)


def _node_rows(db: Connection, session_id: str) -> Iterator[tuple[str, str, str, str, Any]]:
    """``(name, parent, kind, body, attrs)`` of a session's nodes, in the order written
    (``attrs`` as stored: read back, it may be anything a writer put there)."""
    for name, parent, kind, body, attributes in db.execute(
        "SELECT name, parent, kind, body, attrs FROM nodes WHERE session_id = ? ORDER BY seq",
        (session_id,),
    ):
        yield name, parent, kind, body, json.loads(attributes)


def _common_prefix(old: tuple[Message, ...], new: tuple[Message, ...]) -> int:
    """How many leading messages ``old`` and ``new`` share (compared by identity first)."""
    for index, (before, after) in enumerate(zip(old, new, strict=False)):
        if before is not after and before != after:
            return index
    return min(len(old), len(new))


def _walk(tree: SessionTree) -> Iterator[tuple[str, Node]]:
    """``(parent name, node)`` of every node of ``tree`` but the root, a parent before its
    children and siblings in their order (the order a rebuild writes them in)."""
    stack: list[tuple[str, Node]] = [(ROOT_NAME, child) for child in reversed(tree.root.children)]
    while stack:
        parent, node = stack.pop()
        yield parent, node
        stack.extend((node.name, child) for child in reversed(node.children))


def _changed(saved: _NodeFacts, found: tuple[str, Node] | None) -> bool:
    """Whether a saved node is gone from the tree or is not what was saved (bodies are
    compared by identity first: a later version of a tree shares them)."""
    if found is None:
        return True
    parent, node = found
    body = saved[2]
    return (
        (parent, str(node.kind)) != (saved[0], str(saved[1]))
        or (node.body is not body and node.body != body)
        or node.attrs != saved[3]
    )


def sessions_path() -> Path:
    """Where the sessions database lives: in tai's data directory, beside the records."""
    from tai_core.config import user_data_dir

    return user_data_dir() / DATABASE_NAME
