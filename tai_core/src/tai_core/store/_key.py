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

Other data tai writes where a sandboxed process could rewrite it (the checkpoint store)
is authenticated with :func:`mac` and :func:`check`: HMAC-SHA256 under a key derived from
this one for each purpose, so none of those MACs is ever a journal signature.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path

from tai_core.store._errors import FlushError
from tai_core.store._sync import write_synced

#: The directory of tai's keys, inside the data directory (hidden inside the sandbox).
KEYS_DIR = "keys"
_KEY_FILE = "journal.key"
_KEY_BYTES = 32

#: The key of each data directory read so far (one, but for a process that changes
#: ``TAI_DATA_DIR``, as tests do).
_cached: dict[Path, bytes] = {}


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
    import secrets  # with random and base64: only the first start of a user makes a key

    fresh = secrets.token_bytes(_KEY_BYTES)
    temporary = directory / f".{_KEY_FILE}.{os.getpid()}"
    write_synced(temporary, fresh, 0o600)
    try:
        if data:  # a damaged key (the wrong length) is replaced
            temporary.replace(path)
            return fresh
        try:  # a new key: the first process to make one wins, the others read it
            os.link(temporary, path)
        except FileExistsError:
            winner = path.read_bytes()
            if len(winner) == _KEY_BYTES:
                return winner
            temporary.replace(path)
            return fresh
        return fresh
    finally:
        temporary.unlink(missing_ok=True)


def journal_key() -> bytes:
    """The key of the data directory, read (or made) once per process; :class:`FlushError`
    when it cannot be.

    Called before tai enters the sandbox, so the key is in memory when the sandbox has
    hidden its file.
    """
    directory = keys_directory()
    if directory not in _cached:
        try:
            _cached[directory] = _read_or_make(directory)
        except OSError as error:
            raise FlushError(
                f"the journal key in {directory} cannot be read or made "
                f"({error.strerror}); nothing was written"
            ) from None
    return _cached[directory]


def sign(root: Path, document: bytes) -> str:
    """The signature of the journal ``document`` of directory ``root`` (hex)."""
    message = os.fsencode(str(root)) + b"\0" + document
    return hmac.new(journal_key(), message, hashlib.sha256).hexdigest()


def verify(root: Path, document: bytes, signature: str) -> bool:
    """True when ``signature`` is tai's for ``document`` in ``root``."""
    return hmac.compare_digest(sign(root, document), signature)


_purpose_keys: dict[tuple[bytes, str], bytes] = {}


def _purpose_key(purpose: str) -> bytes:
    """A key of its own for ``purpose``, derived from the journal key. Its message starts
    with a NUL byte, which a journal's never does (it starts with an absolute path), so no
    MAC made here is ever a journal signature, nor one purpose's MAC another's."""
    key = journal_key()
    if (key, purpose) not in _purpose_keys:
        message = b"\0tai-mac\0" + purpose.encode()
        _purpose_keys[key, purpose] = hmac.new(key, message, hashlib.sha256).digest()
    return _purpose_keys[key, purpose]


def mac(data: bytes, purpose: str) -> str:
    """HMAC-SHA256 (hex) of ``data`` under the key of ``purpose`` (say
    ``"checkpoint-log"``), for data tai writes where a sandboxed process could rewrite
    it; :class:`FlushError` when the key cannot be read."""
    return hmac.new(_purpose_key(purpose), data, hashlib.sha256).hexdigest()


def check(data: bytes, purpose: str, tag: str) -> bool:
    """True when ``tag`` is :func:`mac` of ``data`` for ``purpose``."""
    return hmac.compare_digest(mac(data, purpose), tag)
