"""Which files are text, and how a file is shown to the model."""

from __future__ import annotations

from pathlib import Path

#: How much of a file's head is searched for a NUL byte (as git and grep do).
SNIFF_BYTES = 8192


def decode_text(data: bytes) -> str | None:
    """``data`` as text, or ``None`` when it is binary: a NUL in the first
    :data:`SNIFF_BYTES`, or not UTF-8."""
    if b"\0" in data[:SNIFF_BYTES]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def has_binary_head(path: Path) -> bool:
    """True when the head of the file at ``path`` holds a NUL byte."""
    with path.open("rb") as stream:
        return b"\0" in stream.read(SNIFF_BYTES)


def read_data(path: Path) -> bytes | None:
    """The bytes of the file at ``path``, or ``None`` when its head holds a NUL byte.

    The head is read first, so a large binary is recognised without reading it whole.
    """
    with path.open("rb") as stream:
        head = stream.read(SNIFF_BYTES)
        if b"\0" in head:
            return None
        return head + stream.read()


def read_text(path: Path) -> str | None:
    """The text of the file at ``path``, or ``None`` when it is binary."""
    data = read_data(path)
    return None if data is None else decode_text(data)


def file_block(shown: str, content: str, *, read_only: bool = False) -> str:
    """A text file between begin and end markers (the markers of ``-file`` files)."""
    mark = " (read-only)" if read_only else ""
    body = content if not content or content.endswith("\n") else content + "\n"
    return f"``` begin of file {shown}{mark}\n{body}``` end of file {shown}\n"


def binary_note(shown: str, size: int, *, read_only: bool = False) -> str:
    """The one line that names a binary file instead of its content."""
    mark = " (read-only)" if read_only else ""
    return f"``` file {shown} (binary, {size} bytes){mark}: content omitted\n"
