"""``tai serve -stdio``: the runtime's commands as JSON lines on standard input, its events
as JSON lines on standard output (see :mod:`tai_core.serve`, ``docs/serve-protocol.md``)."""

from __future__ import annotations

import sys
from typing import Any

import click


def _resolvable(context: click.Context, param: click.Parameter, name: str | None) -> str | None:
    """``name`` when it names a model tai can use; else the command ends at once (exit 2)
    with the reason, rather than serving sessions that would each fail on it."""
    del param
    if name:
        from tai_core.commands._session import resolve

        resolve(context.obj, name, confidential=False)
    return name


#: ``-model NAME``: the model of sessions whose start names none (every client of the
#: runtime that serves sessions: ``tai serve``, ``tai web``), checked before serving.
model_option = click.option(
    "-model", "--model", "model", metavar="NAME", callback=_resolvable,
    help="The model of sessions whose start names none (default: the configured one).",
)  # fmt: skip


@click.command("serve")
@click.option(
    "-stdio", "--stdio", "stdio", is_flag=True, required=True,
    help="Commands on standard input, events on standard output (JSON lines).",
)  # fmt: skip
@model_option
@click.pass_obj
def serve_command(app: Any, stdio: bool, model: str | None) -> None:
    """Serve the runtime to another program over JSON lines."""
    del stdio
    from tai_core.serve import serve_stdio

    sys.exit(serve_stdio(app, model))
