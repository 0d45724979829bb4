"""``tai sessions``: the kept sessions — list them, show one, delete one, export one.

Every session of a generating command is kept in the sessions database of tai's data
directory (``~/.local/share/tai/tai-sessions.db``, ``TAI_DATA_DIR``; ``keep_sessions =
false`` keeps none; see :mod:`tai_core.sessions`). Reading never creates the database: with
nothing kept yet, the command says so. A session id may be given by any unambiguous
prefix, as git takes commits.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from tai_core.sessions import SessionHeader, SessionStore

#: Sessions listed by default.
DEFAULT_LIMIT = 20
NOTHING_KEPT = "no sessions kept yet"


@click.group("sessions", invoke_without_command=True)
@click.option(
    "-limit", "--limit", "limit", type=click.IntRange(min=1), default=DEFAULT_LIMIT,
    metavar="N", show_default=True, help="How many of the newest sessions to list.",
)  # fmt: skip
@click.option(
    "-here", "--here", "here", is_flag=True,
    help="Only the sessions of the current directory.",
)  # fmt: skip
@click.pass_context
def sessions_command(ctx: click.Context, *, limit: int, here: bool) -> None:
    """List the kept sessions, newest first; show, delete or export one."""
    if ctx.invoked_subcommand is not None:
        return
    from tai_core.sessions import sessions_path

    if not sessions_path().is_file():
        click.echo(NOTHING_KEPT)
        return
    with opened_store() as store:
        found = store.list(limit, cwd=str(Path.cwd()) if here else None)
    none = f"no sessions kept in {Path.cwd()}" if here else NOTHING_KEPT
    click.echo(session_table(found) if found else none)


@sessions_command.command("show")
@click.argument("session_id", metavar="ID")
def show_command(session_id: str) -> None:
    """Print session ID: what it is, then its conversation."""
    with opened_store() as store:
        stored = store.load(resolved(store, session_id), require_seal=False)
    header = stored.header
    if not stored.sealed:
        click.echo(f"tai: warning: session {header.id} does not carry tai's seal: it was "
                   "changed outside tai, or saved by a tai that did not seal sessions; it "
                   "cannot be resumed", err=True)  # fmt: skip
    click.echo(describe(header))
    from tai_core._printable import shown_on

    shown = shown_on(sys.stdout)  # the model's words must not drive the terminal
    for message in stored.messages:
        click.echo(shown(f"--- {message.role} ---"))
        click.echo(shown(message.text.rstrip("\n")))


@sessions_command.command("delete")
@click.argument("session_id", metavar="ID")
def delete_command(session_id: str) -> None:
    """Delete session ID with its conversation and tree."""
    with opened_store() as store:
        chosen = resolved(store, session_id)
        store.delete(chosen)
    click.echo(f"deleted session {chosen}", err=True)


@sessions_command.command("export")
@click.argument("session_id", metavar="ID")
@click.option(
    "-o", "--output", "output", type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE", help="Write to FILE (replaced whole) instead of standard output.",
)  # fmt: skip
def export_command(session_id: str, output: Path | None) -> None:
    """Write session ID as JSON lines (docs/sessions.md): its header, its messages, the
    nodes of its tree."""
    from tai_core.runtime._keeper import export_to
    from tai_core.sessions import export_lines

    with opened_store() as store:
        chosen = resolved(store, session_id)
        if output is None:
            from tai_core._printable import shown_on

            shown = shown_on(sys.stdout)  # JSON leaves C1 controls (CSI is one) as they are
            sys.stdout.writelines(shown(line) for line in export_lines(store, chosen))
            return
        try:
            export_to(store, chosen, str(output))
        except OSError as error:  # it names the path and says why
            raise click.ClickException(str(error)) from None
    click.echo(f"wrote session {chosen} to {output}", err=True)


#: Characters of a session's task shown in its row.
TASK_WIDTH = 40


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def session_table(headers: list[SessionHeader]) -> str:
    """The sessions as a table, one line each (as given: newest first)."""
    from tai_core._printable import printable
    from tai_core._table import clock, table

    rows = [
        (h.id, clock(h.updated_at), str(h.rounds), str(h.messages), h.status, h.command,
         h.model, _cut(printable(h.task), TASK_WIDTH), h.cwd)
        for h in headers
    ]  # fmt: skip
    header = ("ID", "UPDATED", "ROUNDS", "MESSAGES", "STATUS", "COMMAND", "MODEL", "TASK",
              "DIRECTORY")  # fmt: skip
    return table(header, rows, right={2, 3})


def describe(header: SessionHeader) -> str:
    """What a session is, in a few lines."""
    from tai_core._printable import printable
    from tai_core._table import clock

    cost = f", ${header.cost:.4f}" if header.cost is not None else ""
    shown = {name: printable(str(getattr(header, name))) for name in ("id", "command", "model",
             "cwd", "status")}  # fmt: skip
    lines = [
        f"session {shown['id']}: tai {shown['command']} with {shown['model']} in {shown['cwd']}",
        f"started {clock(header.created_at)}, updated {clock(header.updated_at)}, "
        f"{header.rounds} round(s), {header.messages} message(s), status {shown['status']}",
        f"tokens: {header.input_tokens} in, {header.output_tokens} out{cost}",
    ]
    if header.last_error:
        lines.append(f"error: {printable(header.last_error)}")
    return "\n".join(lines)


@contextmanager
def opened_store() -> Iterator[SessionStore]:
    """The sessions database, closed afterwards (opened read only when it cannot be
    written: listing and showing still work, a deletion says why it cannot); its errors
    (and its absence) become one line."""
    import sqlite3

    from tai_core.sessions import SessionDamaged, SessionNotFound, SessionStore, sessions_path

    path = sessions_path()
    if not path.is_file():
        raise click.ClickException(NOTHING_KEPT)
    try:
        store = SessionStore(path)
    except sqlite3.OperationalError as error:  # it cannot be written: read it as it is
        try:
            store = SessionStore(path, read_only=True)
        except sqlite3.Error:
            raise click.ClickException(
                f"cannot read the sessions database {path}: {error}"
            ) from None
    except sqlite3.Error as error:
        raise click.ClickException(f"cannot read the sessions database {path}: {error}") from None
    try:
        yield store
    except (SessionNotFound, SessionDamaged) as error:
        raise click.ClickException(str(error)) from None
    except sqlite3.Error as error:
        raise click.ClickException(f"cannot read the sessions database {path}: {error}") from None
    finally:
        store.close()


def resolved(store: SessionStore, given: str) -> str:
    """The id of the session ``given`` names, whole or by an unambiguous prefix."""
    from tai_core.sessions import SessionNotFound

    matching = store.ids_starting(given)
    if given in matching:
        return given
    if len(matching) == 1:
        return matching[0]
    if not matching:
        raise SessionNotFound(f"no session {given!r}")
    shown = ", ".join(matching[:5]) + (", …" if len(matching) > 5 else "")
    raise click.ClickException(f"{given!r} names {len(matching)} sessions: {shown}")
