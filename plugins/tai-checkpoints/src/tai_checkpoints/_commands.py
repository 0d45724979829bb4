"""``tai undo`` and ``tai checkpoints``: the working directory's checkpoints, for people.

``tai undo`` exits 0 when every file the run changed is as it was at the checkpoint (or
already was: undo takes back what the run did, and a run that changed nothing leaves the
tree as it finds it), 1 when some files were kept (edited after the run ended, or refused
by the path checks; each is named) or there is nothing to undo to (no checkpoint here, a
damaged store, checkpoints that are not tai's: one line says which), 2 when the command
line names what is not there (no such run, no such round) — tai's rule: 1 a command that
failed, 2 a command line it cannot use.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from tai_checkpoints._scan import max_file_bytes
from tai_checkpoints._store import UNCHANGED, CheckpointStore, StoreError
from tai_core import printable

_REASONS = {
    "write": "before writing", "run": "before programs", "end": "as the run ended",
    UNCHANGED: "changed nothing",
}  # fmt: skip


#: tai's exit statuses: a command that failed (nothing to undo, a log that cannot be
#: trusted), and a command line naming what is not there (a run id, a round).
_FAILURE, _USAGE = 1, 2


def _fail(message: str, status: int = _FAILURE) -> None:
    click.echo(f"tai: error: {message}", err=True)
    sys.exit(status)


def _command_of(entry: dict[str, Any]) -> str:
    """The tai command a checkpoint's run is one of (a run alone is its own)."""
    return entry.get("command") or entry["session"]


def _last_command(store: CheckpointStore, run_id: str | None = None) -> list[list[dict[str, Any]]]:
    """The checkpoints of the last tai command's runs (its goal loops; most commands run
    one), or of the command of the run whose id starts with ``run_id``, run by run in
    order, each checkpoint tai's and none missing; or exit 1 saying why. A line of those
    runs that is not tai's is named on stderr and not used. Runs that changed nothing
    (a line saying so, no checkpoint) are left out; when the command's runs all did, the
    undo ends here, saying so (exit 0: the tree is as that command left it)."""
    entries = _log(store)
    if not entries:
        _fail(
            f"no checkpoints of {store.root}: tai records one before a run writes files or "
            "runs programs here"
        )
    named = [entry for entry in entries if entry["session"] is not None]
    if not named:
        _fail(f"the checkpoint log of {store.root} is damaged: no line of it is readable")
    # Which run was last, and which runs belong to its command, is read from tai's own
    # lines only: a planted line must neither point the undo at an older run nor stretch
    # it back over the user's edits. A line after the last of tai's leaves that unknown.
    ours = [entry for entry in named if entry["problem"] is None]
    if not ours or ours[-1] is not named[-1]:
        _run(store, [entry for entry in named if entry["session"] == named[-1]["session"]])
        _fail(f"{_describe(store, named[-1])}, and it is the log's last line: undo cannot "
              "tell which run was last; nothing was undone")  # fmt: skip
    chosen = ours[-1] if run_id is None else _named_run(store, ours, run_id)
    command = _command_of(chosen)
    sessions = dict.fromkeys(entry["session"] for entry in ours if _command_of(entry) == command)
    runs = [_run(store, [e for e in named if e["session"] == session]) for session in sessions]
    changed = [run for run in runs if any(entry["reason"] != UNCHANGED for entry in run)]
    if not changed:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(chosen["time"]))
        earlier = [e["session"] for e in ours if e["reason"] != UNCHANGED]
        hint = (f"; tai undo -run {earlier[-1][:12]} undoes the one before it (tai checkpoints "
                "lists them)") if earlier and run_id is None else ""  # fmt: skip
        which = "" if run_id is not None else ", the last here,"
        click.echo(
            f"tai: run {chosen['session'][:12]} of {when}{which} changed no file: nothing "
            f"was undone{hint}",
            err=True,
        )
        sys.exit(0)
    return changed


def _named_run(store: CheckpointStore, ours: list[dict[str, Any]], run_id: str) -> dict[str, Any]:
    """The last of tai's lines of the run whose id starts with ``run_id``; or exit 2 (the
    command line names no run)."""
    found = {entry["session"]: entry for entry in ours if entry["session"].startswith(run_id)}
    if len(found) != 1:
        which = "no run" if not found else f"{len(found)} runs"
        _fail(f"{which} of {store.root} has an id starting with {run_id!r} (tai checkpoints "
              "lists them)", _USAGE)  # fmt: skip
    return next(iter(found.values()))


def _run(store: CheckpointStore, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The good checkpoints of one run (``lines``, its lines of the log); or exit 1."""
    session = lines[0]["session"]
    good, seen = [], set()
    for entry in lines:
        if entry["problem"] is None and entry["mac"] not in seen:
            seen.add(entry["mac"])
            good.append(entry)
    bad = [entry for entry in lines if entry["problem"] is not None]
    previous = (-1, "")
    for entry in good:
        if (entry["number"], entry["previous"]) != (previous[0] + 1, previous[1]):
            break
        previous = (entry["number"], entry["mac"])
    else:
        if any(entry["reason"] != "end" for entry in good):
            for entry in bad:
                click.echo(f"tai: warning: {_describe(store, entry)}; not used", err=True)
            return good
    if bad:
        _fail(f"run {session}'s checkpoints are not tai's: {_describe(store, bad[0])}; "
              "undo does not use them, nothing was undone")  # fmt: skip
    _fail(
        f"run {session}'s checkpoints are incomplete: checkpoint {previous[0] + 2} of the "
        f"run is missing from {store.directory / 'log.jsonl'}; nothing was undone"
    )
    raise AssertionError  # unreachable: _fail exits


def _log(store: CheckpointStore) -> list[dict[str, Any]]:
    from tai_core.store import StoreError as KeyUnreadable

    try:
        return store.log()
    except KeyUnreadable as error:
        _fail(f"the checkpoints of {store.root} cannot be checked: {error}")
        raise AssertionError from None  # unreachable: _fail exits


def _describe(store: CheckpointStore, entry: dict[str, Any]) -> str:
    what = f"round {entry['round']}, {_REASONS.get(entry['reason'], entry['reason'])}"
    return f"{store.directory / 'log.jsonl'} line {entry['line']} ({what}) {entry['problem']}"


def _target(runs: list[list[dict[str, Any]]], round_number: int | None) -> dict[str, Any]:
    """The checkpoint to restore: the first of the command's first run, or the first at
    or after round ``round_number`` of its last run."""
    if round_number is None:
        return next(entry for entry in runs[0] if entry["reason"] != "end")
    run = runs[-1]
    points = [entry for entry in run if entry["reason"] != "end"]
    later = [entry for entry in points if entry["round"] >= round_number]
    if not later:
        rounds = ", ".join(sorted({str(entry["round"]) for entry in points}))
        _fail(
            f"run {run[0]['session']} has no checkpoint at or after round {round_number} "
            f"(checkpointed rounds: {rounds})",
            _USAGE,
        )
    return later[0]


def _undone(runs: list[list[dict[str, Any]]], round_number: int | None) -> str:
    """What an undo went back over, for its last line."""
    if round_number is not None:
        last = runs[-1][0]["session"]
        loop = ", the last goal loop of its tai command" if len(runs) > 1 else ""
        return f"run {last}{loop} (before round {round_number})"
    from tai_core.records import runs_named

    named = runs_named([run[0]["session"] for run in runs])
    if len(runs) == 1:
        return f"{named} (before the run)"
    return f"{named}, the goal loops of one tai command (before the first)"


@click.command("undo")
@click.option(
    "-round",
    "--round",
    "round_number",
    type=click.IntRange(min=1),
    metavar="N",
    help="Restore the tree as it was before round N of the last run (of its last goal loop; "
    "default: before the run, all its goal loops).",
)
@click.option(
    "-run",
    "--run",
    "run_id",
    metavar="ID",
    help="Undo the run (with the other goal loops of its tai command) whose id starts with "
    "ID, as tai checkpoints shows it, not the last one.",
)
@click.pass_obj
def undo_command(app: Any, round_number: int | None, run_id: str | None) -> None:
    """Restore the working tree as it was before the last run (or one of its rounds).

    The goal loops of one tai chat are undone together (-round counts the rounds of the
    last loop). A last run that changed no file (tai next, a chat that only read) leaves
    nothing to undo: -run ID names an earlier one. Files the run created are removed,
    files it deleted or changed are restored; files edited after the run ended are kept
    and named. Ignored files and files over checkpoint_max_file_bytes are never touched.
    """
    from tai_checkpoints._restore import Tree, now_of, restore
    from tai_core.store import PathError, PathGuard, host_policy

    config = app.config.values if app is not None else {}
    store = CheckpointStore(Path.cwd())
    runs = _last_command(store, run_id)
    target = _target(runs, round_number)
    ends = [entry for entry in runs[-1] if entry["reason"] == "end"]
    guard = PathGuard.create(
        store.root,
        config.get("protected_paths") or (),
        host_policy(app.host) if app is not None else None,
    )

    def check(path: str, operation: str) -> None:
        try:
            guard.check(path, operation)
        except PathError as error:
            raise ValueError(str(error)) from None

    try:
        wanted = Tree(store.manifest(target["manifest"]), store.outside(target["outside"]))
        if ends:
            end = Tree(store.manifest(ends[-1]["manifest"]), store.outside(ends[-1]["outside"]))
            now = now_of(store.root, wanted, end)
        else:
            end = Tree(*store.scan_all(max_file_bytes(config)))
            now = Tree(end.files, {**end.outside, **now_of(store.root, wanted, end).outside})
        outcome = restore(store, wanted, end, now, check)
    except (StoreError, OSError) as error:
        _fail(f"undo failed: {error}")
    if not ends:
        click.echo(
            "tai: the run recorded no end (was tai killed?): files edited since cannot be "
            "told apart from the run's edits and are restored too",
            err=True,
        )
    for path in outcome.restored:  # a run may have named a file with control characters
        click.echo(f"restored {printable(str(path))}")
    for path in outcome.removed:
        click.echo(f"removed {printable(str(path))}")
    for path, why in outcome.kept:
        click.echo(f"kept {printable(str(path))}: {why}")
    counts = f"{len(outcome.restored)} restored, {len(outcome.removed)} removed"
    same = "" if outcome.restored or outcome.removed or outcome.kept else (
        " (the files already are as they were before: undone already?)")  # fmt: skip
    click.echo(f"undo of {_undone(runs, round_number)}: {counts}, {len(outcome.kept)} kept"
               f"{same}", err=True)  # fmt: skip
    sys.exit(1 if outcome.kept else 0)


#: Characters of a run's task shown in ``tai checkpoints``.
TASK_WIDTH = 40

#: Kept sessions looked up for their tasks (the newest first).
_SESSIONS_LOOKED_UP = 500


def _tasks() -> dict[str, str]:
    """The task (first line of its first input) of each run the sessions database keeps,
    by session id; none when there is no database or it cannot be read (``tai patch`` and
    runs with ``keep_sessions = false`` have none: their task shows as ``-``)."""
    import sqlite3

    from tai_core.sessions import SessionStore, sessions_path

    path = sessions_path()
    if not path.is_file():
        return {}  # never make a database to read nothing from it
    try:
        store = SessionStore(path, read_only=True)
        try:
            return {header.id: header.task for header in store.list(_SESSIONS_LOOKED_UP)}
        finally:
            store.close()
    except (sqlite3.Error, ValueError, OSError):  # damaged, too new: the tasks go unsaid
        return {}


@click.command("checkpoints")
def checkpoints_command() -> None:
    """List the checkpoints of the working directory, oldest first: run, round, time,
    reason, how many files changed between it and the next one, and the run's task."""
    store = CheckpointStore(Path.cwd())
    entries = _log(store)
    if not entries:
        click.echo(f"no checkpoints of {store.root}")
        return
    manifests: dict[str, dict[str, Any]] = {}

    def manifest(digest: str) -> dict[str, Any] | None:
        if digest not in manifests:
            try:
                manifests[digest] = store.manifest(digest)
            except StoreError:
                return None
        return manifests[digest]

    tasks = _tasks()
    click.echo(f"{'run':<14}{'round':>5}  {'time':<19}  {'reason':<17}{'changed':>8}  task")
    good = [entry for entry in entries if entry["problem"] is None]
    refused = 0
    for entry in entries:
        if entry["problem"] is not None:
            refused += 1
            if entry["session"] is None:
                continue
        later = [e for e in good if e["session"] == entry["session"] and e["line"] > entry["line"]]
        changed = "-"
        if later and entry["problem"] is None:
            mine, theirs = manifest(entry["manifest"]), manifest(later[0]["manifest"])
            if mine is not None and theirs is not None:
                keys = mine.keys() | theirs.keys()
                changed = str(sum(mine.get(k) != theirs.get(k) for k in keys))
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry["time"]))
        reason = _REASONS.get(entry["reason"], entry["reason"])
        if entry["problem"] is not None:
            reason = "NOT TAI'S"
        task = printable(tasks.get(entry["session"], "-"))
        task = task if len(task) <= TASK_WIDTH else task[: TASK_WIDTH - 1] + "…"
        click.echo(
            f"{entry['session'][:13]:<14}{entry['round']:>5}  {when:<19}  {reason:<17}"
            f"{changed:>8}  {task}"
        )
    click.echo(f"(checkpoints of {store.root}; 'changed' counts files up to the next one)")
    if refused:
        click.echo(
            f"({refused} line(s) of {store.directory / 'log.jsonl'} are not tai's "
            "checkpoints — not signed with its key — and undo does not use them)"
        )
