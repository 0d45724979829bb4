"""A session as JSON lines: the export format of ``tai sessions export`` (``docs/sessions.md``).

One JSON object per line, each with a ``type``: first the ``session`` (its header), then
every ``message`` in conversation order, then every ``node`` of the session tree in the
order written (a parent before its children). The format is self-describing so that a
reader needs nothing but the file; text is kept as it is (no field is cut).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import attrs

from tai_core.sessions._store import SessionStore

#: The version of the export format, in the ``session`` line.
EXPORT_VERSION = 1


def export_lines(store: SessionStore, session_id: str) -> Iterator[str]:
    """The lines (each ending in a newline) of session ``session_id``'s export;
    :class:`~tai_core.sessions.SessionNotFound` when there is none."""
    stored = store.load(session_id, require_seal=False)
    header = stored.header
    fields: dict[str, Any] = attrs.asdict(header, recurse=False)
    fields["parameters"] = dict(header.parameters)
    yield _line({"type": "session", "format": EXPORT_VERSION, **fields, "sealed": stored.sealed})
    for message in stored.messages:
        yield _line({"type": "message", "role": message.role, "content": message.text})
    for name, parent, kind, body, attributes in store.node_rows(session_id):
        yield _line(
            {"type": "node", "name": name, "parent": parent, "kind": kind, "body": body,
             "attrs": attributes}
        )  # fmt: skip


def _line(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False) + "\n"
