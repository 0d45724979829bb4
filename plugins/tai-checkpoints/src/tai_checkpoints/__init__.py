"""The ``checkpoints`` plugin: the working tree recorded before a run changes it, and
``tai undo`` to bring it back (invariant 8: nothing is lost).

The pipeline calls ``tai_checkpoint`` right before a round's changes are flushed, right
before the first block of a round that starts programs (``shell``, ``go-test``, ``pytest``:
kinds with ``runs_programs``) and when the run ends. Since a checkpoint precedes every flush and
every round of commands, whatever a run does to the files of the tree — a change block,
``rm -rf`` from a script, ``git checkout -- .``, ``git restore .``, ``git reset --hard``,
``git clean -fd`` — is undone by ``tai undo`` (``-round N``: back to before round N). What
checkpoints leave out — ignored files (``.gitignore``, ``.git/info/exclude``), files over
``checkpoint_max_file_bytes`` (10 MB), ``.git`` itself (inside the sandbox it is
read-only, so a run cannot change it) and tai's flush journal — undo cannot restore; it
never deletes what was left out before the run, and removes what the run created and left
out (ignored by a ``.gitignore`` the run wrote, say) while it is as the run left it.

*A content store of our own, not git.* A private git repository would be as cheap (its
index is a stat cache) but git reads configuration from the repository it works on, and
that repository would lie in tai's data directory, which is writable inside the sandbox:
a planted ``config`` (``core.fsmonitor``, filters, ``core.hooksPath``) would run code at
the user's next ``tai undo``, outside the sandbox. The store here (:mod:`._store`) is
plain content-addressed files — SHA-256 objects, JSON manifests and a stat cache — that
tai only reads as data and checks against their hashes. It also works where git is not
installed.

*Undo runs outside the sandbox*, as ``tai checkpoints`` does: it runs no program and no
model output, and writes only contents the store verifies, to paths checked like a change
block's (inside the tree, never protected, the ``tai_path_policy`` hook, never completing
a directory git would take for a repository). The store lies where a sandboxed run can
write, so undo trusts only what carries tai's MAC (:mod:`._store`): a run can make undo
refuse, not make it write what tai did not record. Edits the user made after the run are
kept and named (:mod:`._restore`).

A checkpoint that cannot be taken (a full disk, no key because there is no data
directory) is a warning, once per process; the run goes on.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from tai_core import hookimpl

#: The first sentences of the commands' help, listed by ``tai --help``.
UNDO = "Restore the working tree as it was before the last run (or one of its rounds)."
CHECKPOINTS = (
    "List the checkpoints of the working directory, oldest first: run, round, time, "
    "reason, how many files changed between it and the next one, and the run's task."
)
#: Sessions of this process that have a checkpoint, so an "end" is only recorded for runs
#: that changed something.
_sessions: set[str] = set()
_warned: list[str] = []


@hookimpl
def tai_checkpoint(  # noqa: PLR0917 - pluggy passes hook arguments by name
    root: str,
    session_id: str,
    round_number: int,
    reason: str,
    config: Mapping[str, Any],
    command_id: str,
) -> None:
    """Record the tree of ``root`` in the checkpoint store of tai's data directory (not in
    a dry run: its tree is a throwaway overlay, nothing to undo). A run that ends without
    a checkpoint leaves only a line saying so, so that ``tai undo`` does not take an
    earlier run for the last."""
    if os.environ.get("TAI_DRY_RUN_OVERLAY"):
        return
    from tai_checkpoints._scan import max_file_bytes
    from tai_checkpoints._store import CheckpointStore
    from tai_core.store import StoreError

    command = command_id if command_id != session_id else None
    try:
        store = CheckpointStore(Path(root))
        if reason == "end" and session_id not in _sessions:
            store.record_unchanged(session_id, command=command)
            return
        store.record(session_id, round_number, reason, max_file_bytes(config), command=command)
    except (OSError, StoreError) as error:
        if not _warned:
            _warned.append(str(error))
            click.echo(f"tai: warning: no checkpoint of {root}, tai undo cannot restore "
                       f"this run: {error}", err=True)  # fmt: skip
        return
    _sessions.add(session_id)


@hookimpl
def tai_register_commands(cli: click.Group) -> None:
    """Add ``tai undo`` and ``tai checkpoints`` (each imported when it runs)."""
    from tai_core.cli import LazyCommand

    cli.add_command(LazyCommand("undo", "tai_checkpoints._commands:undo_command", UNDO))
    cli.add_command(LazyCommand("checkpoints", "tai_checkpoints._commands:checkpoints_command",
                                CHECKPOINTS))  # fmt: skip
