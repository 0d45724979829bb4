"""Where checkpoints live: ``checkpoints/<key>/`` of tai's data directory.

One directory per working directory, keyed by a hash of its real path (``root`` names
it), holding:

* ``objects/ab/cdef…`` — file contents and manifests, stored once under their SHA-256;
  a tree that did not change makes no new object at all;
* ``log.jsonl`` — one line per checkpoint (session, round, reason, time, the hashes of
  its manifest and of its list of paths left out, and for a run that is one of several of
  a tai command — a goal loop — that command's id), appended, so two runs in one
  directory never rewrite each other's lines;
* ``cache.json`` — the stat cache of :mod:`._scan`, replaced atomically.

Nothing here is configuration or code, and nothing is trusted for being there: checkpoints
are taken inside the sandbox, where the data directory is writable, so a model's command
can rewrite any of it. Objects are checked against their hash. Each log line carries an
HMAC-SHA256 under tai's key (:func:`tai_core.store._key.mac`: read before the sandbox
starts, hidden inside it), over the line, the real path of the working directory (a line
copied from another store fails) and the previous line of its run (its number and MAC: a
line removed from the middle of a run breaks the chain). The manifest and the outside
list are covered by their hashes in the signed line. The stat cache carries a MAC too; one
that fails is discarded and every file is hashed afresh. So a tampered store can make
``tai undo`` refuse — it names the line that is not tai's — but never restore what tai
did not record. Without the key (no data directory) no checkpoint is taken.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from tai_checkpoints._scan import Manifest, Outside, Scanner, digest_of

DIRECTORY = "checkpoints"
_LOG_PURPOSE = "checkpoint-log"
_CACHE_PURPOSE = "checkpoint-cache"
#: The reason of the line a run that took no checkpoint ends with (no manifest: it changed
#: nothing here that tai could undo).
UNCHANGED = "unchanged"
#: The last line written by each run of this process: (root, session) -> (number, MAC).
_chains: dict[tuple[str, str], tuple[int, str]] = {}


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

    def outside(self, digest: str) -> Outside:
        """The list of paths left out stored under ``digest``, validated."""
        try:
            raw = json.loads(self.load(digest))
            return {str(path): [int(value) for value in ident] for path, ident in raw.items()}
        except (ValueError, TypeError, AttributeError) as error:
            raise StoreError(f"checkpoint list {digest[:12]} is damaged: {error}") from None

    # -- scanning ----------------------------------------------------------------------

    def _message(self, data: bytes) -> bytes:
        return os.fsencode(str(self.root)) + b"\0" + data

    def _read_cache(self) -> dict[str, Any]:
        """The stat cache, if it is tai's (its MAC matches); ``{}`` otherwise."""
        from tai_core.store._key import check

        try:
            tag, _, body = (self.directory / "cache.json").read_bytes().partition(b"\n")
            if not check(self._message(body), _CACHE_PURPOSE, tag.decode("ascii")):
                return {}
            cache = json.loads(body)
        except (OSError, ValueError):
            return {}
        return cache if isinstance(cache, dict) else {}

    def scan_all(self, limit: int) -> tuple[Manifest, Outside]:
        """The tree as it is now (its new contents stored) and what it leaves out, the stat
        cache updated. Needs tai's key (the errors of :func:`tai_core.store._key.mac`)."""
        manifest, outside, _ = self._scan(limit)
        return manifest, outside

    def scan(self, limit: int) -> Manifest:
        """The tree as it is now (:meth:`scan_all` without what it leaves out)."""
        return self._scan(limit)[0]

    def _scan(self, limit: int) -> tuple[Manifest, Outside, tuple[str, str]]:
        """:meth:`scan_all`, with the hashes of the manifest and outside list, stored.

        When every file is in the stat cache, unchanged, and so is what was left out, the
        two are those of the last scan (kept in the cache): nothing is encoded or written.
        """
        from tai_core.store._key import journal_key, mac

        journal_key()  # no key, no checkpoint: fail before any work
        old = self._read_cache()
        self.objects.mkdir(parents=True, exist_ok=True)
        (self.directory / "root").write_text(str(self.root) + "\n")
        manifest, outside, cache = Scanner(self.root, limit, self.save).scan(old)
        cache["outside"] = outside
        digests = old.get("digests")
        same = len(cache["files"]) == len(manifest) and all(
            cache[name] == old.get(name) for name in ("ignores", "files", "ignored", "outside")
        )
        if not (same and isinstance(digests, list) and len(digests) == 2 and self._have(digests)):
            digests = [self.save(_canonical(manifest)), self.save(_canonical(outside))]
            cache["digests"] = digests
            body = json.dumps(cache, separators=(",", ":")).encode()
            tag = mac(self._message(body), _CACHE_PURPOSE).encode()
            with contextlib.suppress(OSError):
                _write_atomic(self.directory / "cache.json", tag + b"\n" + body)
        return manifest, outside, (str(digests[0]), str(digests[1]))

    def _have(self, digests: list[Any]) -> bool:
        return all(isinstance(d, str) and (self.objects / d[:2] / d[2:]).is_file() for d in digests)

    def _signed_message(self, fields: dict[str, Any]) -> bytes:
        """What a line's MAC covers: :data:`_SIGNED`, and ``command`` when the line names
        one (so a line keeps no MAC once its command is added, changed or taken away)."""
        values = [fields[name] for name in _SIGNED]
        if fields.get("command") is not None:
            values.append(fields["command"])
        return self._message(json.dumps(values).encode())

    def record(
        self, session: str, round_number: int, reason: str, limit: int, *,
        command: str | None = None,
    ) -> Manifest:  # fmt: skip
        """Take a checkpoint and append it to the log, signed; ``command`` names the tai
        command the run is one of (its goal loops share it)."""
        manifest, _, digests = self._scan(limit)
        self._append(session, round_number, reason, digests, command)
        return manifest

    def record_unchanged(self, session: str, *, command: str | None = None) -> bool:
        """Append a signed line saying the run ``session`` ended without a checkpoint (it
        wrote no file and ran no program here), when this directory has a log: so that
        ``tai undo`` knows the last run changed nothing rather than take an earlier run
        for the last. Nothing is scanned; False when there is no log (nothing to undo
        anyway, and no store is made for a directory tai never changed)."""
        if not (self.directory / "log.jsonl").is_file():
            return False
        self._append(session, 0, UNCHANGED, ("", ""), command)
        return True

    def _append(
        self, session: str, round_number: int, reason: str, digests: tuple[str, str],
        command: str | None,
    ) -> None:  # fmt: skip
        from tai_core.store._key import mac

        number, previous = _chains.get((str(self.root), session), (-1, ""))
        line: dict[str, Any] = {
            "session": session, "round": round_number, "reason": reason, "time": time.time(),
            "manifest": digests[0], "outside": digests[1],
            "number": number + 1, "previous": previous,
        }  # fmt: skip
        if command is not None:
            line["command"] = command
        line["mac"] = mac(self._signed_message(line), _LOG_PURPOSE)
        with (self.directory / "log.jsonl").open("a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")
        _chains[str(self.root), session] = (number + 1, line["mac"])

    def log(self) -> list[dict[str, Any]]:
        """Every line of the log, oldest first, each with ``line`` (its number in the file)
        and ``problem``: ``None`` for a checkpoint tai wrote, else why it is not one (it
        is then not to be used; ``session`` is ``None`` when it cannot even be read)."""
        from tai_core.store._key import check

        try:
            text = (self.directory / "log.jsonl").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        entries = []
        for number, line in enumerate(text.splitlines(), start=1):
            try:
                raw = json.loads(line)
                entry: dict[str, Any] = {
                    "session": str(raw["session"]), "round": int(raw["round"]),
                    "reason": str(raw["reason"]), "time": float(raw["time"]),
                    "manifest": str(raw["manifest"]),
                }  # fmt: skip
            except (ValueError, KeyError, TypeError):
                entries.append({"line": number, "session": None, "problem": "is not readable"})
                continue
            entry["line"], entry["problem"] = number, "carries no signature of tai's"
            entry["command"] = str(raw["command"]) if raw.get("command") is not None else None
            try:
                entry.update(
                    outside=str(raw["outside"]), number=int(raw["number"]),
                    previous=str(raw["previous"]), mac=str(raw["mac"]),
                )  # fmt: skip
            except (KeyError, TypeError, ValueError):
                entries.append(entry)
                continue
            if check(self._signed_message(entry), _LOG_PURPOSE, entry["mac"]):
                entry["problem"] = None
            else:
                entry["problem"] = "does not carry tai's signature"
            entries.append(entry)
        return entries


#: The fields of a log line its MAC covers, in order.
_SIGNED = ("session", "round", "reason", "time", "manifest", "outside", "number", "previous")


def _canonical(document: Any) -> bytes:
    return json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
