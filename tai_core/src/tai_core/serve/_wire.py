"""The JSON-lines protocol of ``tai serve -stdio``: commands in, events out.

A command is one JSON object on one line, ``{"type": NAME, …fields}``; :func:`decode`
turns it into one of the :data:`REQUESTS` values or raises :class:`BadRequest` naming what
is wrong (the server answers that with an ``error`` event and goes on). An event is the
runtime's event as ``{"type": snake_name, …fields}`` (:func:`encode`): values become JSON
(blocks, results, usage as objects; a session tree as the nodes written since the last
``tree_changed`` of that session, so that a long session never resends its whole tree).
The reference (``docs/serve-protocol.md``) is generated from these classes.
"""

from __future__ import annotations

import json
import re
import types
import typing
from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from tai_core import events as runtime_events
from tai_core.tree import ROOT_NAME, SessionTree


class BadRequest(ValueError):
    """A line that is not a command this protocol knows, with the reason; ``session_id``
    is the session the line names when it names one (its error is that session's)."""

    def __init__(self, message: str, session_id: str = "") -> None:
        super().__init__(message)
        self.session_id = session_id


def _at_least_one(instance: Any, attribute: attrs.Attribute[int], value: int) -> None:
    del instance
    if value < 1:
        raise ValueError(f"{attribute.name} must be at least 1, not {value}")


@attrs.frozen
class Start:
    """Start a chat session (``command`` must be ``ai``, the one kind served) with
    ``model`` (default: ``tai serve -model``, else the configured one); its id is
    ``session_id`` when given, else a new one (see ``session_started``). ``shell`` lets the
    model run shell blocks, ``memory`` uses and updates its profile of the user. The first
    submit carries the session's rules."""

    name: ClassVar[str] = "start"
    session_id: str | None = None
    command: str = "ai"
    model: str | None = None
    shell: bool = False
    memory: bool = True


@attrs.frozen
class SubmitText:
    """Send ``text`` to the model as the session's next input."""

    name: ClassVar[str] = "submit"
    session_id: str
    text: str


@attrs.frozen
class SteerText:
    """Add ``text`` to the session's running turn: a streaming reply is interrupted and
    asked again with it (what it had said stays); while the turn's blocks run, it goes with
    its next request. With no turn running it is refused (an error ``notice``): submit it."""

    name: ClassVar[str] = "steer"
    session_id: str
    text: str


@attrs.frozen
class CancelRun:
    """Stop the session's running turn (nothing of its round is applied)."""

    name: ClassVar[str] = "cancel"
    session_id: str


@attrs.frozen
class Close:
    """Close the session (saved as closed)."""

    name: ClassVar[str] = "close"
    session_id: str


@attrs.frozen
class Reset:
    """Clear the session's conversation, keeping its model and rules."""

    name: ClassVar[str] = "reset"
    session_id: str


@attrs.frozen
class Compact:
    """Replace the session's conversation by its summary now, keeping what
    ``instructions`` ask (refused while a turn runs): ``session_compacted``, or a warning
    ``notice`` saying why the conversation was kept."""

    name: ClassVar[str] = "compact"
    session_id: str
    instructions: str = ""


@attrs.frozen
class Update:
    """Change the model or call parameters from the next model call on."""

    name: ClassVar[str] = "update"
    session_id: str
    model: str | None = None
    temperature: float | None = None
    max_output_tokens: int | None = None
    reasoning_effort: str | None = None


@attrs.frozen
class ListKept:
    """List the ``limit`` (at least 1) kept sessions updated last, newest first (of
    directory ``cwd`` when given)."""

    name: ClassVar[str] = "list"
    limit: int = attrs.field(default=10, validator=_at_least_one)
    cwd: str | None = None


@attrs.frozen
class Load:
    """Take up kept session ``session_id`` (or an unambiguous prefix of it) with ``model``
    (default: ``tai serve -model``, else the configured one)."""

    name: ClassVar[str] = "load"
    session_id: str
    model: str | None = None


@attrs.frozen
class Delete:
    """Delete kept session ``session_id`` (or an unambiguous prefix of it)."""

    name: ClassVar[str] = "delete"
    session_id: str


@attrs.frozen
class Export:
    """Write kept session ``session_id`` (or an unambiguous prefix of it) as JSON lines to
    ``path``."""

    name: ClassVar[str] = "export"
    session_id: str
    path: str


@attrs.frozen
class RunCommand:
    """Run the plugins' session command ``name`` (what ``/NAME ARGS`` runs in ``tai ai``;
    ``help`` lists them): its output comes as ``extension_command_finished``."""

    name: ClassVar[str] = "command"
    session_id: str
    command: str
    args: str = ""


@attrs.frozen
class Respond:
    """Answer the open question ``prompt_id`` (``prompt_requested``): ``true``/``false`` to a
    confirm, one of its choices to a select, a string to an input."""

    name: ClassVar[str] = "respond"
    session_id: str
    prompt_id: str
    answer: bool | str


@attrs.frozen
class Reload:
    """Read the configuration and the installed plugins again (refused while a turn runs):
    ``extensions_reloaded`` says what loaded and what failed."""

    name: ClassVar[str] = "reload"


Request = (
    Start
    | SubmitText
    | SteerText
    | CancelRun
    | Close
    | Reset
    | Compact
    | Update
    | ListKept
    | Load
    | Delete
    | Export
    | RunCommand
    | Reload
    | Respond
)
#: Every command, by its ``type``.
REQUESTS: dict[str, type[Any]] = {cls.name: cls for cls in typing.get_args(Request)}

#: Every event, by its ``type``.
EVENTS: dict[str, type[Any]] = {}
#: What an event means on the wire, where that differs from the runtime's event.
WIRE_MEANING = {
    "tree_changed": "The session tree grew: ``nodes`` are the nodes written since this "
    "session's previous ``tree_changed``, in the order written (a parent before its "
    "children), each ``{name, parent, kind, body, attrs}``. When ``replaced`` is true the "
    "tree changed otherwise than by growing (a cancelled turn's nodes were taken back, and "
    "their names may come again for other nodes): ``nodes`` is then the whole tree, which "
    "replaces the one the client holds.",
}


def snake(name: str) -> str:
    """``SessionStarted`` → ``session_started``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


for _cls in typing.get_args(runtime_events.Event):
    EVENTS[snake(_cls.__name__)] = _cls


def decode(line: str) -> Request:
    """The command of one line; :class:`BadRequest` with the reason when it is none."""
    try:
        data = json.loads(line)
    except ValueError as error:
        raise BadRequest(f"not JSON: {error}") from None
    if not isinstance(data, dict):
        raise BadRequest("a command is a JSON object")
    named = data.get("session_id")
    try:
        return _request(data)
    except BadRequest as error:
        raise BadRequest(str(error), named if isinstance(named, str) else "") from None


def _request(data: dict[str, Any]) -> Request:
    """The command a line's JSON object is; :class:`BadRequest` when it is none."""
    kind = data.pop("type", None)
    known = ", ".join(sorted(REQUESTS))
    if kind is None:
        raise BadRequest(f"a command needs a type (one of {known})")
    cls = REQUESTS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise BadRequest(f"unknown command type {kind!r} (known: {known})")
    fields = {field.name: field for field in attrs.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise BadRequest(f"{kind}: unknown fields {unknown}")
    hints = typing.get_type_hints(cls)
    for field in fields.values():
        if field.name not in data:
            if field.default is attrs.NOTHING:
                raise BadRequest(f"{kind}: {field.name} is missing")
            continue
        if not _fits(data[field.name], hints[field.name]):
            raise BadRequest(f"{kind}: {field.name} must be {type_name(hints[field.name])}")
    try:
        return cls(**data)  # type: ignore[no-any-return]
    except ValueError as error:  # a field's own rule (``_at_least_one``)
        raise BadRequest(f"{kind}: {error}") from None


def _fits(value: Any, hint: Any) -> bool:
    """Whether the JSON ``value`` is of type ``hint`` (str, int, float, bool, None, unions)."""
    if isinstance(hint, types.UnionType):
        return any(_fits(value, option) for option in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def type_name(hint: Any) -> str:
    """How the reference names a field's type."""
    if isinstance(hint, types.UnionType):
        return " or ".join(type_name(option) for option in typing.get_args(hint))
    names = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}
    if hint in names:
        return names[hint]
    return getattr(hint, "__name__", str(hint)).replace("tuple", "array")


class Encoder:
    """Events as JSON lines; remembers the tree nodes each session's client has seen."""

    def __init__(self) -> None:
        #: Per session, each node sent by name, with what it was (parent, kind, body).
        self._sent: dict[str, dict[str, tuple[str, str, str]]] = {}

    def encode(self, event: Any) -> str:
        """One event as one line (no newline). A session that starts (again, under its id:
        a load) or is reset has a new tree: its nodes are sent anew."""
        if isinstance(event, runtime_events.SessionStarted | runtime_events.SessionReset):
            self._sent.pop(event.session_id, None)
        fields: dict[str, Any] = {"type": snake(type(event).__name__)}
        for field in attrs.fields(type(event)):
            value = getattr(event, field.name)
            if isinstance(value, SessionTree):
                fields["nodes"], fields["replaced"] = self._new_nodes(event.session_id, value)
            else:
                fields[field.name] = _plain(value)
        return json.dumps(fields, ensure_ascii=False)

    def _new_nodes(self, session_id: str, tree: SessionTree) -> tuple[list[dict[str, Any]], bool]:
        """The nodes of ``tree`` the session's client has not seen, and whether they are
        the whole tree instead: when a node it saw is gone or is now another."""
        sent = self._sent.setdefault(session_id, {})
        nodes: list[tuple[str, Any]] = []
        stack = [(ROOT_NAME, child) for child in reversed(tree.root.children)]
        while stack:
            parent, node = stack.pop()
            nodes.append((parent, node))
            stack.extend((node.name, child) for child in reversed(node.children))
        now = {node.name: (parent, str(node.kind), node.body) for parent, node in nodes}
        replaced = any(now.get(name) != seen for name, seen in sent.items())
        if replaced:
            sent.clear()
        found = [
            {"name": node.name, "parent": parent, "kind": str(node.kind), "body": node.body,
             "attrs": dict(node.attrs)}
            for parent, node in nodes
            if node.name not in sent
        ]  # fmt: skip
        sent.update((entry["name"], now[entry["name"]]) for entry in found)
        return found, replaced


def _plain(value: Any) -> Any:
    """``value`` as JSON values."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if attrs.has(type(value)):
        return {f.name: _plain(getattr(value, f.name)) for f in attrs.fields(type(value))}
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(item) for item in value]
    return str(value)
