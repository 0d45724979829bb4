"""The error log of a failed change: everything needed to see why, in one XML file.

When a change fails on a file's content — a target missing, a result that is not valid
Go, a formatter's complaint — the message fed back to the model is one line. The log keeps
the rest: the block (operation, target, path, find, body), the file before, the text the
change produced and the error, in ``.error-log.<YYYYMMDD-HHMMSS>[-N].xml`` in the working
directory, the fields named as in the original tool so existing habits carry over. It is
tai's record, not the project's: no context shows it to a model
(:func:`tai_core.context.is_error_log`).
A command that promises to write nothing (``tai patch -no-apply``) runs the changes
:func:`without_logs`.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from tai_core.context import ERROR_LOG_PREFIX, ERROR_LOG_SUFFIX

#: Characters XML 1.0 cannot carry, replaced by U+FFFD.
_INVALID = {c: "\ufffd" for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20))}


def _clean(text: str) -> str:
    text = text.translate(_INVALID)
    return text.encode("utf-8", "replace").decode("utf-8")


def write_error_log(
    directory: Path,
    *,
    operation: str,
    target: str,
    file_path: str,
    find: str,
    change_block: str,
    source_file: str,
    modified_file: str,
    error: str,
    now: datetime | None = None,
) -> Path:
    """Write the log; returns its path. ``find`` is left out when empty."""
    moment = (now or datetime.now()).astimezone()
    root = ET.Element("error-log")
    fields = [
        ("timestamp", moment.isoformat(timespec="seconds")),
        ("operation", operation),
        ("target", target),
        ("file-path", file_path),
        ("find", find),
        ("change-block", change_block),
        ("source-file", source_file),
        ("modified-file", modified_file),
        ("error", error),
    ]
    for name, value in fields:
        if name != "find" or value:
            ET.SubElement(root, name).text = _clean(value)
    ET.indent(root)
    data = ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
    stamp = moment.strftime("%Y%m%d-%H%M%S")
    for attempt in range(1000):
        suffix = f"-{attempt}" if attempt else ""
        path = directory / f"{ERROR_LOG_PREFIX}{stamp}{suffix}{ERROR_LOG_SUFFIX}"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        return path
    raise FileExistsError(f"{directory}: too many error logs for {stamp}")


_written = contextvars.ContextVar("tai_error_logs", default=True)


@contextlib.contextmanager
def without_logs() -> Iterator[None]:
    """Within this, :func:`try_error_log` writes nothing (a dry run)."""
    token = _written.set(False)
    try:
        yield
    finally:
        _written.reset(token)


def try_error_log(directory: Path, **fields: str) -> Path | None:
    """:func:`write_error_log`, or ``None`` when the directory is not writable or logs are
    off (:func:`without_logs`)."""
    if not _written.get():
        return None
    with contextlib.suppress(OSError):
        return write_error_log(directory, **fields)
    return None
