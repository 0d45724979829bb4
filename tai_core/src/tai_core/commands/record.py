"""``tai record``: the recorded runs — list them, read one, replay one, have one analysed.

Runs are recorded with ``-record`` (or ``record = true``) into the records database of
tai's data directory (``~/.local/share/tai``, ``TAI_DATA_DIR``; see :mod:`tai_core.records`).
Reading never creates the database: with nothing recorded yet, the command says how to
record.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tai_core._printable import shown_on

if TYPE_CHECKING:
    from tai_core.records import RecordStore, SessionRow

#: Runs listed by default.
DEFAULT_LIMIT = 10
HOW_TO_RECORD = "run a command with -record (or set record = true in tai.toml)"

ANALYSIS_PROMPT = """\
You review the transcript of one run of tai, a coding tool that sends staged context to a \
language model and carries out the heredoc blocks the model writes (edits, source requests, \
commands, plans, summaries). The transcript lists, in order, the system prompt, the user's \
task, and for every round the model's reply, the blocks parsed from it, their results, \
parse errors, notices, token usage and how the round ended.

Find what made this run slower, costlier or less reliable than it should have been, and \
say how to improve it. Look at:
- the prompts: missing context, unclear instructions, contradictions, noise;
- the model's behaviour: malformed or invalid blocks, guessed results, repeated requests, \
wasted rounds, edits that failed or were redone, a finish before the task was done;
- the tool's behaviour: feedback that did not help the model correct itself, unhelpful \
block results, retries and their causes, errors.

Answer in plain text: first a two-sentence verdict on the run, then the problems found, \
most costly first, each with the evidence (round and row type) and a concrete change to the \
prompt, the configuration or the tool that would avoid it. Do not invent anything the \
transcript does not show; when the run went well, say so briefly."""


@click.command("record")
@click.option(
    "-limit",
    "--limit",
    "limit",
    type=click.IntRange(min=1),
    default=DEFAULT_LIMIT,
    metavar="N",
    show_default=True,
    help="How many of the newest runs to list.",
)
@click.option(
    "-session", "--session", "session", type=int, metavar="N", help="Print the transcript of run N."
)
@click.option(
    "-analyze",
    "--analyze",
    "analyze",
    is_flag=True,
    help="Have a model analyse run N (default: the newest) and suggest improvements.",
)
@click.option("-model", "--model", "model", metavar="NAME", help="The model for -analyze.")
@click.option(
    "-replay",
    "--replay",
    "replay",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Write run N's replies to FILE for the replay provider (-model replay:FILE).",
)
@click.pass_obj
def record_command(
    app: Any, *, limit: int, session: int | None, analyze: bool, model: str | None,
    replay: Path | None,
) -> None:  # fmt: skip
    """List recorded runs, print one, write its replies for replay, or analyse it."""
    import sqlite3

    from tai_core.records import RecordStore, records_path, session_list, transcript

    if replay is not None and (session is None or analyze):
        raise click.UsageError(
            "-replay needs -session N (the run whose replies to write), and goes without -analyze"
        )
    path = records_path()
    wanted = analyze or session is not None
    if not path.is_file():
        if wanted:
            raise click.ClickException(f"no recorded runs yet: {HOW_TO_RECORD}")
        click.echo(f"no recorded runs yet: {HOW_TO_RECORD}")
        return
    try:
        store = RecordStore(path)
        try:
            if not wanted:
                runs = store.sessions(limit)
                click.echo(session_list(runs) if runs else f"no recorded runs yet: {HOW_TO_RECORD}")
                return
            chosen = _chosen(store, session)
            events = store.events(chosen.id)
            together = store.runs_of_the_command(chosen.id) if replay is not None else []
            runs = [(run, events if run == chosen.id else store.events(run)) for run in together]
        finally:
            store.close()
    except sqlite3.Error as error:
        raise click.ClickException(f"cannot read the records database {path}: {error}") from None
    if replay is not None:
        from tai_core.records import ReplayError, replay_script, runs_named

        try:
            script = replay_script(runs, asked=chosen.id)
        except ReplayError as error:
            raise click.ClickException(f"cannot write a replay: {error}") from None
        try:
            replay.write_text(script, encoding="utf-8")
        except OSError as error:
            raise click.ClickException(f"cannot write {replay}: {error.strerror}") from None
        which = runs_named(together)
        if len(together) > 1:
            which += f" (the {_parts(chosen.command)} of one tai command)"
        click.echo(f"wrote the replies of {which} to {replay}", err=True)
    elif analyze:
        _analyze(app, model, transcript(chosen, events))
    else:
        click.echo(shown_on(sys.stdout)(transcript(chosen, events)), nl=False)


def _parts(command: str) -> str:
    """What the recorded runs of one tai command are to each other."""
    return "turns" if command == "ai" else "goal loops"


def _chosen(store: RecordStore, session: int | None) -> SessionRow:
    """Run ``session``, or the newest run."""
    if session is None:
        newest = store.sessions(1)
        if not newest:
            raise click.ClickException(f"no recorded runs yet: {HOW_TO_RECORD}")
        return newest[0]
    chosen = store.session(session)
    if chosen is None:
        raise click.ClickException(f"no recorded run {session}")
    return chosen


def fitted_transcript(text: str, tokens: int) -> str:
    """``text`` within ``tokens`` (estimated): a transcript too long for the model keeps
    its beginning (the prompts and the task) and its end (how the run ended), and says
    how much of the middle it leaves out."""
    room = max(0, tokens * 4 - 200)
    if len(text) <= room:
        return text
    head, tail = room // 3, room - room // 3
    left_out = len(text) - head - tail
    note = f"[… {left_out} characters of the transcript left out to fit the model's window …]"
    return f"{text[:head]}\n\n{note}\n\n{text[len(text) - tail :]}"


def _analyze(app: Any, model: str | None, text: str) -> None:
    import asyncio

    from tai_core.commands._session import resolve
    from tai_core.models import ProviderError, ask, estimate_tokens, window_of

    provider, spec = resolve(app, model, confidential=False)
    text = fitted_transcript(
        text, window_of(spec).request_tokens - estimate_tokens(ANALYSIS_PROMPT)
    )

    shown = shown_on(sys.stdout)

    def show(piece: str) -> None:
        sys.stdout.write(shown(piece))
        sys.stdout.flush()

    try:
        answer = asyncio.run(ask(provider, spec, ANALYSIS_PROMPT, text, show))
    except ProviderError as error:
        click.echo(f"tai: error: {error}", err=True)
        sys.exit(1)
    if not answer.endswith("\n"):
        sys.stdout.write("\n")
