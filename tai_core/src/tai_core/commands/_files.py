"""Files named with ``-file``, rendered in full for the prompt.

Patterns are globs relative to the working directory (``**`` crosses directories) or plain
paths; matches are sorted and deduplicated. Text files are included whole between begin and
end markers; a file that is not UTF-8 text is named with a note instead, so the model knows
it exists. A pattern that matches nothing is an error: a silently empty context is worse,
and so is a name no file system takes (too long) or a named file whose name is not UTF-8
(it cannot be sent; a glob leaves such files out): each is one line, usage exit status.

Secret files (``secret``, the ``tai_secret_file`` hook): a file named exactly, without a
glob, is the user's decision and is sent, with one warning line on stderr; one that only a
glob matched is withheld — named in the prompt's closing list, never shown — because a
``-file '**/*'`` should not carry a ``.env`` along unseen.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import click

from tai_core.context import TIER_FILES, ContextPart, SecretCheck, judged, withheld
from tai_core.store import shown_path
from tai_core.textfile import is_utf8


def _is_glob(pattern: str) -> bool:
    return any(char in pattern for char in "*?[")


def _matches(pattern: str, cwd: Path) -> list[Path]:
    path = Path(pattern).expanduser()
    if not _is_glob(pattern):
        full = path if path.is_absolute() else cwd / path
        return [full] if full.is_file() else []
    base = Path(path.anchor) if path.is_absolute() else cwd
    relative = str(path.relative_to(path.anchor)) if path.is_absolute() else pattern
    return [match for match in base.glob(relative) if match.is_file()]


def file_parts(
    patterns: Sequence[str],
    cwd: Path,
    is_writable: Callable[[Path], bool] | None = None,
    secret: SecretCheck | None = None,
) -> list[ContextPart]:
    """One context part per file of ``patterns`` (none without patterns), last in the
    prompt (``TIER_FILES``), in path order; files the run may not change are marked; with
    ``secret``, secret files are withheld or warned about (see the module docstring)."""
    files: list[Path] = []
    named: set[Path] = set()
    for pattern in patterns:
        shown_pattern = os.fsencode(pattern).decode("utf-8", "backslashreplace")
        try:
            found = _matches(pattern, cwd)
        except OSError as error:  # a name or path too long for the file system
            raise click.UsageError(f"-file {shown_path(shown_pattern)}: {error.strerror}") from None
        if _is_glob(pattern):  # what a glob matches and no prompt can name is left out
            found = [path for path in found if is_utf8(str(path))]
        elif not is_utf8(pattern):
            raise click.UsageError(
                f"-file {shown_path(shown_pattern)}: the file name is not UTF-8, so it cannot "
                "be sent to a model (rename the file)"
            )
        if not found:
            raise click.UsageError(f"-file {pattern}: no file matches")
        files.extend(found)
        if not _is_glob(pattern):
            named.update(found)
    parts = []
    for path in sorted(set(files)):
        shown = str(path.relative_to(cwd) if path.is_relative_to(cwd) else path)
        if secret is not None:
            try:
                data: bytes | None = path.read_bytes()
            except OSError:
                data = None
            shown_posix, real = Path(shown).as_posix(), path.resolve()
            target = shown_posix if real == path else str(real)  # asked again only for a link
            reason = judged(secret, shown_posix, target, data)
            if reason and path not in named:
                parts.append(withheld(shown_posix, reason))
                continue
            if reason:
                click.echo(
                    f"tai: warning: -file {shown} looks like a secret ({reason}); "
                    "sending it because you named it",
                    err=True,
                )
        read_only = is_writable is not None and not is_writable(path)
        marker = f"{shown} (read-only)" if read_only else shown
        try:
            content = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            text = f"``` file {marker}: not UTF-8 text, content omitted"
        else:
            text = f"``` begin of file {marker}\n{content.rstrip()}\n``` end of file {shown}"
        parts.append(ContextPart(TIER_FILES, shown, text, path=shown, read_only=read_only))
    return parts
