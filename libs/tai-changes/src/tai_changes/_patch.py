"""``tai patch [FILE]``: apply the change blocks saved in a file, resumably.

A reply saved to ``.AI`` (or any file) is applied exactly as a run applies it: the blocks
go through the same validation, the same :func:`~tai_changes.apply_change` into a
store, the same formatting and the same crash-atomic flush. Patching is resumable: the
blocks applied are cut out of the file *in the same flush* that writes their changes, so
whatever happens the file and the working tree agree, and running the command again
continues with the block that failed. Blocks that are not changes, and change blocks
without an op, stay in the file untouched. The store is opened with the
``tai_secret_file`` hook, as a run's is, so a block on a secret file is refused the same
way (the error is printed, and an error log would sit in the tree for a later run).
"""

from __future__ import annotations

import contextlib
import sys
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tai_changes._error_log import without_logs
from tai_core import shown_on
from tai_core.blocks import Block, BlockParseError, parse_blocks
from tai_core.plugins import validation_problems

if TYPE_CHECKING:
    from tai_core.store import FileStore


def _changed(before: FileStore, after: FileStore) -> set[str]:
    return {key for key, text in after.overlay.items() if before.overlay.get(key, 0) is not text}


def _summary(block: Block) -> str:
    params = block.params
    return " ".join(
        part for part in (params.get("op"), params.get("target"), params.get("file-path")) if part
    )


def _apply_all(
    store: FileStore, host: Any, text: str
) -> tuple[FileStore, list[Block], list[set[str]], str | None]:
    """Apply the change blocks of ``text`` in order until one fails.

    Returns the store, the blocks applied, the paths each touched, and the error (or
    ``None``).
    """
    from tai_changes import apply_change
    from tai_core.store import ApplyError

    kind = host.registry.block_kinds.get("change")
    applied: list[Block] = []
    touched: list[set[str]] = []
    for result in parse_blocks(text):
        if isinstance(result, BlockParseError):
            return store, applied, touched, result.message().splitlines()[0]
        if result.kind != "change" or not result.params.get("op"):
            continue
        if kind is None:
            return store, applied, touched, "the change kind is disabled (-p no:change)"
        problems = validation_problems(host.pm.hook, result, kind)
        if problems:
            return store, applied, touched, f"line {result.line}: " + "; ".join(problems)
        try:
            after = apply_change(store, result)
        except ApplyError as error:
            return store, applied, touched, f"line {result.line}: {error}"
        applied.append(result)
        touched.append(_changed(store, after))
        store = after
    return store, applied, touched, None


def _finish(
    fresh: FileStore, store: FileStore, applied: list[Block], touched: list[set[str]]
) -> tuple[FileStore, list[Block], str | None]:
    """Format the applied changes. When a file cannot be formatted (or goimports cannot be
    had: then any Go file), keep only the blocks before the first one that touched it,
    re-applied from ``fresh``, and report the failure."""
    from tai_changes import ChangeError, apply_change, finish_changes, is_go

    error = None
    while True:
        try:
            return finish_changes(store), applied, error
        except ChangeError as failure:
            error = error or str(failure)
            culprit = failure.file or None
            keep = next(
                (
                    i
                    for i, paths in enumerate(touched)
                    if (culprit in paths if culprit else any(map(is_go, paths)))
                ),
                0,
            )
            applied, touched = applied[:keep], touched[:keep]
            store = fresh
            for block in applied:
                store = apply_change(store, block)


def _remainder(text: str, applied: list[Block]) -> str:
    """``text`` without the ``applied`` blocks (and the blank line each leaves), stripped."""
    pieces, at = [], 0
    for block in applied:
        pieces.append(text[at : block.start])
        at = block.end
        if text.startswith("\n", at) and text[: block.start].endswith("\n\n"):
            at += 1
    pieces.append(text[at:])
    rest = "".join(pieces).strip()
    return rest + "\n" if rest else ""


def _flush(app: Any, store: FileStore) -> None:
    """Write ``store``'s changes, the tree recorded before and after as a run's flush is
    (``tai_checkpoint``), so that ``tai undo`` undoes a patch too; a flush the disk
    refused ends tai with status 1."""
    from tai_core.store import StoreError

    run_id = uuid.uuid4().hex[:12]
    _checkpoint(app, run_id, "write")
    try:
        store.flush()
    except StoreError as failure:
        click.echo(f"tai: error: {failure}", err=True)
        sys.exit(1)
    finally:
        _checkpoint(app, run_id, "end")


def _checkpoint(app: Any, run_id: str, reason: str) -> None:
    """Let the checkpoint plugin record the tree (``tai_checkpoint``) for ``reason``."""
    from tai_core.plugins import observe

    observe(
        app.host.pm.hook.tai_checkpoint, lambda line: click.echo(f"tai: warning: {line}", err=True),
        root=str(Path.cwd()), session_id=run_id, round_number=1, reason=reason,
        config=app.config.values, command_id=run_id,
    )  # fmt: skip


@click.command("patch")
@click.argument("file", default=".AI", type=click.Path(dir_okay=False))
@click.option(
    "-no-apply", "--no-apply", "dry_run", is_flag=True,
    help="Write nothing; print the unified diff the blocks would make.",
)  # fmt: skip
@click.pass_obj
def patch_command(app: Any, file: str, dry_run: bool) -> None:
    """Apply the change blocks in FILE (default .AI) to the working directory.

    Blocks are applied in order through the same code as a run (validation, formatting,
    a crash-atomic write), one line is printed per applied block, and the applied blocks
    are removed from FILE. On an error, what was applied before it is kept and written,
    the error is printed and the exit status is 1: running the command again continues.
    FILE must be UTF-8 (else nothing is applied, exit status 1; a FILE that cannot be read
    at all is a usage error, exit status 2); bodies are written byte
    for byte, carriage returns included. `durable = false` in tai.toml skips syncing to
    the disk.
    Other blocks and change blocks without an op stay in FILE. With -no-apply nothing is
    written: the unified diff the blocks would make is printed instead.
    """
    from tai_core.store import FileStore, PathError
    from tai_core.textfile import NotUTF8Error, read_utf8

    path = Path(file)
    try:
        text = read_utf8(path)  # bytes as they are: a body's \r stays
    except NotUTF8Error as error:
        raise click.ClickException(str(error)) from None
    except OSError as error:  # a usage error, as click says of tai parse's REPLY
        unread = f"cannot read {file}: {error.strerror}"
        raise click.BadParameter(unread, param_hint="FILE") from None
    except ValueError:  # a NUL byte in the name
        unread = f"{file!r}: a file name cannot hold NUL"
        raise click.BadParameter(unread, param_hint="FILE") from None
    fresh = FileStore.for_run(Path.cwd(), app.host, app.config.values)  # secrets refused
    with without_logs() if dry_run else contextlib.nullcontext():  # -no-apply writes nothing
        store, applied, touched, error = _apply_all(fresh, app.host, text)
        store, applied, finish_error = _finish(fresh, store, applied, touched)
    error = finish_error or error
    if dry_run:
        from tai_core.store import render_diff

        click.echo(render_diff(store.pending(), sys.stdout.isatty()), nl=False)
        if error:
            click.echo(f"tai: error: {shown_on(sys.stderr)(str(error))}", err=True)
        sys.exit(1 if error else 0)
    if applied:
        remainder = _remainder(text, applied)
        try:
            store = store.write(str(path.resolve()), remainder)
            inside = True
        except PathError:
            inside = False
        _flush(app, store)
        if not inside:
            path.write_bytes(remainder.encode("utf-8"))
    for block in applied:
        click.echo(shown_on(sys.stdout)(f"Applied {_summary(block)}"))  # the reply's paths
    if error:
        click.echo(f"tai: error: {shown_on(sys.stderr)(str(error))}", err=True)
        sys.exit(1)
    if not applied:
        click.echo(f"No change blocks to apply in {file}.")
