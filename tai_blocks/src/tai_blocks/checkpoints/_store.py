"""Where checkpoints live: ``checkpoints/<key>/`` of tai's data directory.

One directory per working directory, keyed by a hash of its real path (``root`` names
it), holding:

* ``objects/ab/cdef…`` — file contents and manifests, stored once under their SHA-256;
  a tree that did not change makes no new object at all;
* ``log.jsonl`` — one line per checkpoint (session, round, reason, time, manifest hash),
  appended, so two runs in one directory never rewrite each other's lines;
* ``cache.json`` — the stat cache of :mod:`._scan`, replaced atomically.

Nothing here is configuration or code: tai reads only bytes it checks against their hash
and JSON it validates, so a process inside the sandbox (where the data directory is
writable) that tampers with the store can at worst make ``tai undo`` refuse, or restore
content it could have written into the working directory anyway — never to a protected
path, never outside the tree (:mod:`._restore` checks every path it writes).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from tai_blocks.checkpoints._scan import Manifest, Scanner, digest_of

DIRECTORY = "checkpoints"


class StoreError(Exception):
    """The checkpoint store is damaged or cannot be written; the message says where."""


def store_directory(root: Path) -> Path:
    """The checkpoint directory of the working directory ``root`` (its real path)."""
    from tai_core.config import user_data_dir

    key = hashlib.sha256(str(root).encode()).hexdigest()[:24]
    return user_data_dir() / DIRECTORY / key


def _write_atomic(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_bytes(data)
    temporary.replace(path)


class CheckpointStore:
    """The checkpoints of one working directory."""

    def __init__(self, root: Path) -> None:
        self.root = Path(os.path.realpath(root))
        self.directory = store_directory(self.root)
        self.objects = self.directory / "objects"

    # -- objects -----------------------------------------------------------------------

    def save(self, data: bytes) -> str:
        """Store ``data`` (once) and return its hash."""
        digest = digest_of(data)
        path = self.objects / digest[:2] / digest[2:]
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            _write_atomic(path, data)
        return digest

    def load(self, digest: str) -> bytes:
        """The object ``digest``; :class:`StoreError` when it is missing or altered."""
        if len(digest) != 64 or digest.strip("0123456789abcdef"):
            raise StoreError(f"checkpoint object name {digest[:70]!r} is not a hash")
        path = self.objects / digest[:2] / digest[2:]
        try:
            data = path.read_bytes()
        except OSError as error:
            raise StoreError(f"checkpoint object {digest[:12]} is missing ({error})") from None
        if digest_of(data) != digest:
            raise StoreError(f"checkpoint object {path} was altered; it is not used")
        return data

    def manifest(self, digest: str) -> Manifest:
        """The manifest stored under ``digest``, validated."""
        try:
            raw = json.loads(self.load(digest))
            return {
                str(path): (str(entry[0]), int(entry[1]), bool(entry[2]))
                for path, entry in raw.items()
            }
        except (ValueError, TypeError, IndexError, AttributeError) as error:
            raise StoreError(f"checkpoint manifest {digest[:12]} is damaged: {error}") from None

    # -- scanning ----------------------------------------------------------------------

    def scan(self, limit: int) -> Manifest:
        """The tree as it is now (its new contents stored), the stat cache updated."""
        self.objects.mkdir(parents=True, exist_ok=True)
        (self.directory / "root").write_text(str(self.root) + "\n")
        cache_path = self.directory / "cache.json"
        try:
            cache = json.loads(cache_path.read_bytes())
            if not isinstance(cache, dict):
                cache = {}
        except (OSError, ValueError):
            cache = {}
        manifest, cache = Scanner(self.root, limit, self.save).scan(cache)
        with contextlib.suppress(OSError):
            _write_atomic(cache_path, json.dumps(cache, separators=(",", ":")).encode())
        return manifest

    def record(self, session: str, round_number: int, reason: str, limit: int) -> Manifest:
        """Take a checkpoint and append it to the log."""
        manifest = self.scan(limit)
        text = json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()
        line = {
            "session": session, "round": round_number, "reason": reason,
            "time": time.time(), "manifest": self.save(text),
        }  # fmt: skip
        with (self.directory / "log.jsonl").open("a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")
        return manifest

    def log(self) -> list[dict[str, Any]]:
        """Every checkpoint of this directory, oldest first (damaged lines skipped)."""
        try:
            lines = (self.directory / "log.jsonl").read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        entries = []
        for line in lines:
            try:
                entry = json.loads(line)
                entries.append(
                    {
                        "session": str(entry["session"]),
                        "round": int(entry["round"]),
                        "reason": str(entry["reason"]),
                        "time": float(entry["time"]),
                        "manifest": str(entry["manifest"]),
                    }
                )
            except (ValueError, KeyError, TypeError):
                continue
        return entries
