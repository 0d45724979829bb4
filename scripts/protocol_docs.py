"""Write (or, with --check, verify) docs/serve-protocol.md from the protocol's classes.

The reference of ``tai serve -stdio`` is generated from the command classes of
``tai_core.serve._wire`` and the event classes of ``tai_core.events`` so that the docs and
the code cannot drift; the test suite runs the --check form.
"""

from __future__ import annotations

import inspect
import json
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
from _generated import write_or_check

from tai_core.serve._wire import EVENTS, REQUESTS, WIRE_MEANING, type_name
from tai_core.tree import SessionTree

DOC = Path(__file__).resolve().parent.parent / "docs" / "serve-protocol.md"

INTRO = """\
# The `tai serve -stdio` protocol

Generated from `tai_core/src/tai_core/serve/_wire.py` and `tai_core/src/tai_core/events.py`
by `scripts/protocol_docs.py`; do not edit by hand.

`tai serve -stdio` reads commands from standard input and writes events to standard
output, each one JSON object on one line (UTF-8), with its kind in `type`. Commands are
handled as they arrive: a `submit` starts a turn and the next line is read at once, so a
`cancel` or a `steer` reaches a streaming turn; a `list`, `load`, `delete` or `export` is
done before the next line is read (a `submit` right after a `load` finds the session). A
line that is not a command, or a command that fails, is answered by a `notice` of level
`error` naming what is wrong; the server goes on. At the end of standard input the server
lets the running turns end, closes every session (each is saved) and exits 0.
`tai serve -stdio -model NAME` names the model of sessions whose `start` names none.
Standard error carries warnings meant for a person.

Events come in the order the runtime published them. While a client is slow, adjacent
`text_received` (or `thought_received`) pieces of one round are merged into one line and
adjacent `tree_changed` of one session into one: nothing is lost, and the terminal events
(`run_finished`, `run_failed`, `run_cancelled`, `session_closed`) are never merged. A
`tree_changed` holds the session tree's nodes written since the session's previous
`tree_changed` (`name`, `parent`, `kind`, `body`, `attrs`), so a client rebuilds the tree by
adding them in order.

A session is typically: `start` → `session_started` (its `session_id`) → `submit` →
`session_status_changed` (`streaming`) … `text_received` … `run_finished` and
`session_status_changed` (`idle`) → more submits → `close` → `session_closed`.
"""


def describe(hint: Any) -> str:
    """How the reference names a field's JSON type."""
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if isinstance(hint, types.UnionType):
        return " or ".join(describe(option) for option in arguments)
    if origin in (tuple, list):
        return f"array of {describe(arguments[0])}"
    if origin in (dict, Mapping) or hint is dict:
        return "object"
    if attrs.has(hint):
        names = ", ".join(f"`{field.name}`" for field in attrs.fields(hint))
        return f"object ({names})"
    if hint is SessionTree:
        return "array of nodes"
    if hint is Any:
        return "any"
    return type_name(hint)


def fields(cls: type[Any]) -> list[str]:
    from tai_core.sessions import SessionHeader

    hints = typing.get_type_hints(cls, localns={"SessionHeader": SessionHeader})
    lines = []
    for field in attrs.fields(cls):
        hint = hints[field.name]
        name = "nodes" if hint is SessionTree else field.name
        default = field.default
        if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
            default = default.factory()  # type: ignore[union-attr]
        shown = "" if field.default is attrs.NOTHING else f" (default `{_json(default)}`)"
        lines.append(f"- `{name}`: {describe(hint)}{shown}")
    return lines


def _json(value: Any) -> str:
    return json.dumps(list(value) if isinstance(value, tuple | frozenset) else value)


def section(kind: str, cls: type[Any]) -> str:
    doc = WIRE_MEANING.get(kind) or inspect.cleandoc(cls.__doc__ or "")
    return "\n".join([f"### `{kind}`", "", doc, "", *fields(cls), ""])


def render() -> str:
    parts = [INTRO, "## Commands", ""]
    parts += [section(kind, cls) for kind, cls in REQUESTS.items()]
    parts += ["## Events", ""]
    parts += [section(kind, cls) for kind, cls in sorted(EVENTS.items())]
    return "\n".join(parts).rstrip("\n") + "\n"


def main() -> int:
    return write_or_check(DOC, render, "protocol_docs.py", __doc__ or "")


if __name__ == "__main__":
    raise SystemExit(main())
