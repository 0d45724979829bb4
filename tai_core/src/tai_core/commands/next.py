"""``tai next``: answer a task from the assembled context, as text; no file changes.

The answer is the reply itself (streamed to stdout), optionally recorded as ``response``
blocks in the session tree; ``change`` and the other acting kinds are announced as disabled,
so nothing in the working tree changes. One round, unless malformed blocks need correcting.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from tai_core.commands._options import generation_options, parse_flags

THEORY_OF_NEXT = """\
You answer the user's task from the context given here: the files and documentation below \
and the task itself. Answer directly and completely in plain text (Markdown is fine). You \
cannot change files or run anything in this mode; when something would need that, say what \
should be done. If the context lacks what the answer needs, say what is missing."""


@click.command("next")
@generation_options
@click.pass_obj
def next_command(app: Any, **params: Any) -> None:
    """Answer a task from the context, as text (changes no files)."""
    from tai_core.commands._files import file_parts
    from tai_core.commands._session import run_session
    from tai_core.context import hook_check
    from tai_core.context._prompt import build_prompt

    flags = parse_flags(params)
    task = flags.chat
    if flags.stdin and not sys.stdin.isatty():
        task = "\n\n".join(filter(None, [task, sys.stdin.read()]))
    if not task.strip():
        raise click.UsageError('nothing to answer: give the task as chat "…" (or -stdin)')
    secret = hook_check(app.host.pm.hook, app.config.values)
    prompt = build_prompt(
        base=THEORY_OF_NEXT, kinds=app.host.registry.block_kinds.values(), command="next",
        parts=file_parts(flags.files, Path.cwd(), secret=secret), task=task,
        config=app.config.values,
    )  # fmt: skip
    code = run_session(
        app, flags, command="next", system=prompt.system, user=prompt.user,
        require_completion=False,
    )  # fmt: skip
    sys.exit(code)
