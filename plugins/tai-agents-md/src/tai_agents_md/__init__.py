"""AGENTS.md: the project's standing instructions, in the system prompt of every run.

Where they are found: in every directory from the repository's root (the nearest
directory above the working directory that holds ``.git``) down to the working directory,
the ``AGENTS.md`` of each, root first and the nearest last, so that the nearer file, read
later, has the last word where they disagree; outside a repository, the working
directory's alone — a file above it, in a home directory say, belongs to no project this
run is about. Each is sent whole up to :data:`MAX_BYTES` (cut at a line, with a note,
beyond); the text sits in the static part of the prompt (``tai_system_prompt``), so it is
cached with it.

Why tai may obey it: a model cannot have written it. The sandbox protects ``AGENTS.md``
at any depth as it protects tai's configuration (``tai_sandbox.paths``): read-only inside
a run, removed when a run creates one, refused to change blocks. Whatever the text holds,
the core checks it for secrets before it is sent (``tai_secret_file``), as it checks files.

Off for one run with ``-no-agents-md`` (before the command: ``tai -no-agents-md chat
"…"``), or for good with ``agents_md = false`` in tai.toml.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from tai_core import hookimpl
from tai_core.config import INSTRUCTIONS_FILE, project_directories

#: The most bytes of one file sent.
MAX_BYTES = 32 * 1024
#: The flag that leaves the files out for one run.
FLAG = "-no-agents-md"


class State:
    """Whether this process was told ``-no-agents-md``."""

    flagged = False


def discovered(cwd: Path) -> list[Path]:
    """The AGENTS.md files that apply in ``cwd``: from the repository's root down to
    ``cwd`` (``cwd``'s alone outside a repository), root first."""
    found = (directory / INSTRUCTIONS_FILE for directory in project_directories(cwd))
    return [path for path in found if path.is_file()]


def _text(path: Path) -> str:
    data = path.read_bytes()
    kept = data[:MAX_BYTES]
    if len(kept) < len(data):
        kept = kept[: kept.rfind(b"\n") + 1] or kept
    text = kept.decode("utf-8", errors="replace").strip()
    if len(kept) < len(data):
        text += f"\n\n(the rest of the file, {len(data) - len(kept)} bytes, is left out)"
    return text


def instructions(cwd: Path) -> str | None:
    """The section of the system prompt for ``cwd``'s AGENTS.md files, or ``None``."""
    sections = []
    for path in discovered(cwd):
        try:
            text = _text(path)
        except OSError as error:
            click.echo(f"tai: warning: {path} is not read: {error.strerror}", err=True)
            continue
        if text:
            sections.append(f"## {os.path.relpath(path, cwd.resolve())}\n\n{text}")
    if not sections:
        return None
    return "\n\n".join([
        "# Project instructions (AGENTS.md)\n\nThe project's standing instructions to you. "
        "Follow them; where two disagree, the later (nearer) file wins.",
        *sections,
    ])  # fmt: skip


def _flag(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    del ctx, param
    State.flagged = State.flagged or value


@hookimpl
def tai_register_commands(cli: click.Group) -> None:
    """Add ``-no-agents-md``."""
    cli.params.append(
        click.Option([FLAG, f"-{FLAG}"], is_flag=True, expose_value=False, callback=_flag,
                     help="Leave the project's AGENTS.md files out of this run's prompt."),
    )  # fmt: skip


@hookimpl
def tai_system_prompt(command: str, cwd: str, config: Mapping[str, Any]) -> str | None:
    """The AGENTS.md files that apply in ``cwd``, unless switched off."""
    del command
    if State.flagged or not config.get("agents_md", True):
        return None
    return instructions(Path(cwd))
