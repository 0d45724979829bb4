"""Verdicts of the content scan kept across runs, each signed by tai.

A file whose bytes were scanned once is not scanned again — nor detect-secrets imported,
about 160 ms of every start that sends a file — while its bytes, its path and the scanner
stay the same: ``tai next`` in an unchanged project asks this store, not detect-secrets.

Why shaped so
    The store is a file in tai's cache directory, which a sandboxed command can write. A
    verdict of "no credential" planted for a file that holds one would let the credential
    out at the next run, so every line carries an HMAC under tai's key
    (:func:`tai_core.store._key.mac`, a purpose of its own), which the sandbox hides from
    what a model runs: a line whose MAC does not check is ignored, as is a line that does
    not parse. Without the key (it cannot be read) nothing is kept or trusted and every
    file is scanned, as before.

    One line per verdict, ``KEY MAC VERDICT``: ``KEY`` the 128-bit BLAKE2b of the scanner's
    identity (the detect-secrets version, its plugins, this format), the path and the
    bytes; ``VERDICT`` ``-`` for none, else the credential's type. Lines are appended with
    ``O_APPEND`` (concurrent runs do not tear them) and read once per process; MACs are
    checked only for the lines looked up. When the file holds more than
    :data:`MAX_LINES`, the newer half is kept (written aside, then renamed over).
"""

from __future__ import annotations

import hashlib
import os
import threading
from functools import cache
from pathlib import Path

#: The format of a line; a change makes every kept verdict unknown.
FORMAT = "1"
#: The store's file, in tai's cache directory.
FILE_NAME = "secret-verdicts"
#: Lines kept at most; past this the older half goes.
MAX_LINES = 20_000
#: The MAC's purpose (one key of its own, derived from tai's).
PURPOSE = "secret-verdict"
#: The verdict of content that holds no credential.
CLEAN = "-"

_lock = threading.Lock()
#: The lines read, by key: ``(mac, verdict)``, not yet checked; ``None`` before the read.
_lines: dict[str, tuple[str, str]] | None = None


def _path() -> Path:
    from tai_core.config import user_cache_dir

    return user_cache_dir() / FILE_NAME


@cache
def _scanner(plugins: str) -> bytes:
    """What identifies the scan: detect-secrets' version, its plugins, this format."""
    from importlib import metadata

    try:
        version = metadata.version("detect-secrets")
    except metadata.PackageNotFoundError:
        version = "?"
    return f"{FORMAT}\0{version}\0{plugins}\0".encode()


def key_of(plugins: str, path: str, data: bytes) -> str:
    """The key of ``data`` shown as ``path`` under the scanner using ``plugins``."""
    digest = hashlib.blake2b(_scanner(plugins), digest_size=16)
    digest.update(os.fsencode(path) + b"\0")
    digest.update(data)
    return digest.hexdigest()


def _message(key: str, verdict: str) -> bytes:
    """What a line's MAC covers: its key and its verdict."""
    return f"{key} {verdict}".encode()


def _signature(key: str, verdict: str) -> str | None:
    """The MAC of a line, or ``None`` when tai's key cannot be read."""
    from tai_core.store import StoreError
    from tai_core.store._key import mac

    try:
        return mac(_message(key, verdict), PURPOSE)
    except StoreError:
        return None


def _read() -> dict[str, tuple[str, str]]:
    lines: dict[str, tuple[str, str]] = {}
    try:
        text = _path().read_bytes().decode("utf-8", "replace")
    except OSError:
        return lines
    for line in text.splitlines():
        fields = line.split(" ", 2)
        if len(fields) == 3 and len(fields[0]) == 32 and len(fields[1]) == 64:
            lines[fields[0]] = (fields[1], fields[2])
    if len(lines) > MAX_LINES:
        _keep_newer_half(lines)
    return lines


def _keep_newer_half(lines: dict[str, tuple[str, str]]) -> None:
    """Drop the older half of ``lines`` (in place) and rewrite the file with the rest."""
    for key in list(lines)[: len(lines) // 2]:
        del lines[key]
    path = _path()
    aside = path.with_name(f"{path.name}.{os.getpid()}")
    text = "".join(f"{key} {mac} {verdict}\n" for key, (mac, verdict) in lines.items())
    try:
        aside.write_text(text, encoding="utf-8")
        aside.replace(path)
    except OSError:
        return  # read-only here: the next run outside trims it


def recall(key: str) -> str | None:
    """The verdict kept for ``key`` (:data:`CLEAN` or a credential's type) when its line
    is tai's; ``None`` when none is, or it is not."""
    global _lines  # noqa: PLW0603 - the file is read once per process
    with _lock:
        if _lines is None:
            _lines = _read()
        found = _lines.get(key)
    if found is None:
        return None
    mac, verdict = found
    from tai_core.store import StoreError
    from tai_core.store._key import check

    try:
        return verdict if check(_message(key, verdict), PURPOSE, mac) else None
    except StoreError:  # no key, nothing believed
        return None


def keep(key: str, verdict: str) -> None:
    """Append the verdict for ``key``; nothing when the key or the file cannot be had."""
    signature = _signature(key, verdict)
    if signature is None or "\n" in verdict:
        return
    line = f"{key} {signature} {verdict}\n".encode()
    try:
        path = _path()
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        return
    try:
        os.write(descriptor, line)
    except OSError:
        pass
    finally:
        os.close(descriptor)
    with _lock:
        if _lines is not None:
            _lines[key] = (signature, verdict)
