"""The journal key: how recovery knows that a flush journal is one tai wrote.

Recovery acts on what a journal says — it renames staged files over targets and deletes
files — at the next start of tai, so a journal someone else wrote (a model's shell block,
a file a change block could not be stopped from writing) would be a way to act later. A
journal is therefore signed with HMAC-SHA256 under a per-user key, together with the real
path of the directory it belongs to, and recovery only carries out journals whose
signature matches: a forged one, or one copied from another directory, is refused.

The key lives in ``keys/journal.key`` of tai's data directory (mode 0600, made on first
use). It is read before tai enters the sandbox and kept in memory only; inside, the
sandbox hides the ``keys`` directory behind an empty read-only mount and makes tai's
processes undumpable, so nothing a model runs can read the key to forge a signature.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from tai_core.store._errors import FlushError

#: The directory of tai's keys, inside the data directory (hidden inside the sandbox).
KEYS_DIR = "keys"
_KEY_FILE = "journal.key"
_KEY_BYTES = 32

_cached: bytes | None = None


def keys_directory() -> Path:
    """Where tai keeps its keys (``keys/`` in the data directory)."""
    from tai_core.config import user_data_dir

    return user_data_dir() / KEYS_DIR


def _read_or_make(directory: Path) -> bytes:
    path = directory / _KEY_FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = b""
    if len(data) == _KEY_BYTES:
        return data
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    fresh = secrets.token_bytes(_KEY_BYTES)
    temporary = directory / f".{_KEY_FILE}.{os.getpid()}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, fresh)
        os.fsync(fd)
    finally:
        os.close(fd)
    temporary.replace(path)
    return fresh


def journal_key() -> bytes:
    """The key, read (or made) once per process; :class:`FlushError` when it cannot be.

    Called before tai enters the sandbox, so the key is in memory when the sandbox has
    hidden its file.
    """
    global _cached  # noqa: PLW0603 - one key per process, read before the sandbox starts
    if _cached is None:
        try:
            _cached = _read_or_make(keys_directory())
        except OSError as error:
            raise FlushError(
                f"the journal key in {keys_directory()} cannot be read or made "
                f"({error.strerror}); nothing was written"
            ) from None
    return _cached


def sign(root: Path, document: bytes) -> str:
    """The signature of the journal ``document`` of directory ``root`` (hex)."""
    message = os.fsencode(str(root)) + b"\0" + document
    return hmac.new(journal_key(), message, hashlib.sha256).hexdigest()


def verify(root: Path, document: bytes, signature: str) -> bool:
    """True when ``signature`` is tai's for ``document`` in ``root``."""
    return hmac.compare_digest(sign(root, document), signature)
