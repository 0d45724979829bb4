"""The in-memory store: a persistent overlay of pending edits over what tai read from disk.

A :class:`FileStore` is an immutable value. Every edit returns a new store and leaves the
old one as it was, sharing everything unchanged (pyrsistent maps), so the snapshot taken
before a round *is* the store to go back to when the round fails (invariant 1): nothing is
undone, the failed value is dropped.

Three maps make a store:

``overlay``
    The pending edits: a path's new text, or ``None`` for a deletion. Reads see it first.
``base``
    What the disk held when tai first read each path — its text and its fingerprint
    (modification time, size, SHA-256), refreshed by tai's own flushes. A flush compares
    the disk with it, so a file someone else changed meanwhile is a conflict, never an
    overwrite.
``originals``
    Each path's text when the session first touched it, kept across resets and flushes,
    so :meth:`FileStore.changes` gives everything a whole run changed (review, the final
    diff) while :meth:`FileStore.pending` gives what the next flush will write.

Reading a path records it (``touch``/``load`` return a new store): the fingerprint must be
taken when tai reads the file, not when it writes it, or a change made by someone else in
between would be silently overwritten.

The store also carries the run's *secret check* (the ``tai_secret_file`` hook, as whoever
opened the store asks it: :func:`~tai_core.context.hook_check`), because the store is the
one value every editor is handed: :meth:`FileStore.withheld` says why a file must not reach
the model, by its names and by its content as the run sees it. The store refuses nothing
itself — reading a secret file into the overlay sends nothing anywhere; it is the editors
that put file content into messages (errors, hints, logs) that must ask first.

The store knows files, not languages. An editor that needs a last pass over a round's
edits before they are shown or written (the change kind formats Go files with goimports)
attaches a *finisher* to the store it returns: a function from store to store, run by
:meth:`FileStore.finished`, which :meth:`FileStore.flush` calls first. So whoever holds
the store needs to know nothing about the editors that filled it. A finisher that starts a
program (the project's formatter, which the model may have written itself) prepares it with
the store's :attr:`FileStore.prepare_program` — for a run, the ``tai_block_process`` hook —
so it gets what a block's program gets: no secrets in its environment, and no network when
the run has none.

Text is decoded as UTF-8 with ``surrogateescape``, so any file round-trips byte for byte.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs
from pyrsistent import PMap, pmap

from tai_core.context._secrets import SecretCheck, names_only
from tai_core.store._diff import Change
from tai_core.store._errors import ApplyError, PathError
from tai_core.store._paths import PathGuard, PathPolicy

#: A file whose recorded modification time is this close to the moment it was read may
#: have been changed again within the file system's timestamp granularity; its content is
#: compared even when time and size look unchanged (git's "racy" entries).
RACY_NS = 2_000_000_000

#: Adjusts a program a finisher is about to start: its arguments and environment, in place.
ProgramPreparer = Callable[[list[str], dict[str, str]], None]


def unprepared(argv: list[str], env: dict[str, str]) -> None:
    """The default :data:`ProgramPreparer`: the program runs as it is (no run to ask)."""
    del argv, env


def encode(text: str) -> bytes:
    """The bytes of a stored text (see the module docstring)."""
    return text.encode("utf-8", "surrogateescape")


def decode(data: bytes) -> str:
    """The stored text of file contents (see the module docstring)."""
    return data.decode("utf-8", "surrogateescape")


@attrs.frozen
class Seen:
    """A path's state on disk as tai last knew it: absent (``text is None``) or a file."""

    text: str | None
    mtime_ns: int = 0
    size: int = 0
    digest: bytes = b""
    #: When tai read (or wrote) it, for the racy check.
    read_ns: int = 0

    @classmethod
    def observe(cls, path: Path, name: str = "") -> Seen:
        """Read ``path`` now: its text and fingerprint, or absent.

        Raises :class:`PathError` (naming it ``name``) when something other than a regular
        file is there.
        """
        now = time.time_ns()
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except (FileNotFoundError, NotADirectoryError):
            return cls(None, read_ns=now)
        except OSError as error:  # a name too long, a loop of links, no permission
            raise PathError(f"{name or path}: cannot be read: {error.strerror}") from None
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise PathError(f"{name or path}: is a directory, not a file")
            if not stat.S_ISREG(info.st_mode):
                raise PathError(f"{name or path}: is not a regular file")
            chunks = []
            while chunk := os.read(fd, max(info.st_size, 1 << 16)):
                chunks.append(chunk)
        finally:
            os.close(fd)
        data = b"".join(chunks)
        return cls(decode(data), info.st_mtime_ns, len(data), hashlib.sha256(data).digest(), now)

    def unchanged_on_disk(self, path: Path) -> bool:
        """True when ``path`` still holds what this records (content decides; an unchanged,
        non-racy modification time and size are trusted without reading)."""
        try:
            info = path.stat()
        except (FileNotFoundError, NotADirectoryError):
            return self.text is None
        if self.text is None:
            return False
        if (
            info.st_mtime_ns == self.mtime_ns
            and info.st_size == self.size
            and self.mtime_ns + RACY_NS < self.read_ns
        ):
            return True
        try:
            current = Seen.observe(path)
        except PathError:
            return False
        return current.digest == self.digest


@attrs.frozen
class FileStore:
    """The files of one working directory as a run sees them: disk plus pending edits.

    Paths given to the methods may be relative to the working directory or absolute inside
    it; they are resolved and checked by the store's :class:`PathGuard`. Every method that
    changes something returns a new store.
    """

    guard: PathGuard
    base: PMap[str, Seen] = attrs.field(factory=pmap)
    originals: PMap[str, str | None] = attrs.field(factory=pmap)
    overlay: PMap[str, str | None] = attrs.field(factory=pmap)
    finishers: PMap[str, Callable[[FileStore], FileStore]] = attrs.field(
        factory=pmap, eq=False, repr=False
    )
    #: Whether :meth:`flush` survives a power loss too (see :meth:`flush`). Carried by the
    #: store so that whoever opens it (from the configuration's ``durable``) decides, not
    #: each caller of ``flush``.
    durable: bool = True
    #: Why a file must not reach the model (see :meth:`withheld`); by default the built-in
    #: name rules only, as when no plugin can be asked.
    secret: SecretCheck = attrs.field(factory=names_only, eq=False, repr=False)
    #: How a finisher prepares a program it starts (see the module docstring).
    prepare_program: ProgramPreparer = attrs.field(default=unprepared, eq=False, repr=False)

    @classmethod
    def open(
        cls,
        root: Path | str,
        *,
        protected: Iterable[str] = (),
        policy: PathPolicy | None = None,
        durable: bool = True,
        secret: SecretCheck | None = None,
        prepare_program: ProgramPreparer = unprepared,
    ) -> FileStore:
        """An empty store over the working directory ``root``.

        :param protected: extra protected patterns (the configuration's ``protected_paths``).
        :param policy: asked before every write (see :func:`host_policy`).
        :param durable: the default of :meth:`flush` (the configuration's ``durable``).
        :param secret: why a file must not reach the model — for a run, the hook
            (``hook_check(host.pm.hook, config)``); by default the built-in name rules.
        :param prepare_program: how a finisher prepares a program it starts — for a run,
            :func:`tai_core.blocks.process_hook` (``tai_block_process``).
        """
        return cls(
            PathGuard.create(root, protected, policy),
            durable=durable,
            secret=secret or names_only(),
            prepare_program=prepare_program,
        )

    @classmethod
    def for_run(cls, root: Path | str, host: Any, config: Mapping[str, Any]) -> FileStore:
        """The store of a run of ``host``'s plugins with ``config``: the configuration's
        protected paths and ``durable``, and the plugins' path policy
        (``tai_path_policy``), secret check (``tai_secret_file``) and program preparation
        (``tai_block_process``)."""
        from tai_core.blocks import process_hook
        from tai_core.context import hook_check
        from tai_core.store._paths import host_policy

        hook = host.pm.hook
        return cls.open(
            root, protected=config.get("protected_paths", []), policy=host_policy(host),
            durable=config.get("durable", True), secret=hook_check(hook, config),
            prepare_program=process_hook(hook, config),
        )  # fmt: skip

    @property
    def root(self) -> Path:
        """The working directory (resolved)."""
        return self.guard.root

    def resolve(self, path: str) -> str:
        """The key of ``path`` (see :meth:`PathGuard.resolve`)."""
        return self.guard.resolve(path)

    def touch(self, path: str) -> FileStore:
        """Record ``path``'s disk state if this session has not read it yet."""
        return self._touch(self.resolve(path))

    def _touch(self, key: str) -> FileStore:
        if key in self.base:
            return self
        seen = Seen.observe(self.root / key, key)
        # a path enters base and originals together, and never leaves base
        originals = self.originals.set(key, seen.text)
        return attrs.evolve(self, base=self.base.set(key, seen), originals=originals)

    def read(self, path: str) -> str | None:
        """The text of ``path`` as the run sees it (``None``: absent), recording nothing.

        A path neither edited nor touched is read from disk as it is now.
        """
        return self._read(self.resolve(path))

    def _read(self, key: str) -> str | None:
        if key in self.overlay:
            return self.overlay[key]
        if key in self.base:
            return self.base[key].text
        return Seen.observe(self.root / key, key).text

    def load(self, path: str) -> tuple[FileStore, str | None]:
        """Touch ``path`` and read it: the store that remembers the read, and the text."""
        key = self.resolve(path)
        store = self._touch(key)
        return store, store._read(key)

    def withheld(self, path: str) -> str | None:
        """Why the file ``path`` is withheld from the model as a secret, or ``None``.

        The secret check is asked about the file's key (its real path, so a link is judged
        by what it leads to) and about ``path`` as written (so a link named ``.env`` is
        judged by its own name), each with the file's content as the run sees it (``None``
        when it does not exist). Records nothing; raises :class:`PathError` for a path
        :meth:`resolve` refuses.
        """
        key = self.resolve(path)
        text = self._read(key)
        data = None if text is None else encode(text)
        for name in dict.fromkeys((key, self._as_written(path))):
            reason = self.secret(name, data)
            if reason:
                return reason
        return None

    def _as_written(self, path: str) -> str:
        """``path`` normalised without following links: relative to the working directory
        (``/``-separated) when it lies inside it."""
        joined = os.path.normpath(self.root / path.strip())
        return Path(os.path.relpath(joined, self.root)).as_posix()

    def exists(self, path: str) -> bool:
        """True when ``path`` exists as the run sees it."""
        return self.read(path) is not None

    def write(self, path: str, text: str) -> FileStore:
        """Set the text of ``path`` (creating it when absent)."""
        key = self.resolve(path)
        store = self._touch(key)
        self.guard.check(key, "write" if store._read(key) is not None else "create")
        return attrs.evolve(store, overlay=store.overlay.set(key, text))

    def delete(self, path: str) -> FileStore:
        """Delete ``path``; deleting an absent file is not an error."""
        key = self.resolve(path)
        self.guard.check(key, "delete")
        store = self._touch(key)
        return attrs.evolve(store, overlay=store.overlay.set(key, None))

    def rename(self, old: str, new: str) -> FileStore:
        """Move ``old`` to ``new``; ``old`` must exist and ``new`` must not."""
        old_key, new_key = self.resolve(old), self.resolve(new)
        self.guard.check(old_key, "rename")
        self.guard.check(new_key, "rename")
        store = self._touch(old_key)._touch(new_key)
        text = store._read(old_key)
        if text is None:
            raise ApplyError(f"{old_key}: cannot rename a file that does not exist")
        if old_key == new_key:
            return store
        if store._read(new_key) is not None:
            raise ApplyError(
                f"cannot rename {old_key} to {new_key}: {new_key} already exists "
                "(delete it first, or write the content you want there)"
            )
        overlay = store.overlay.set(old_key, None).set(new_key, text)
        return attrs.evolve(store, overlay=overlay)

    def with_finisher(self, name: str, finisher: Callable[[FileStore], FileStore]) -> FileStore:
        """This store with ``finisher`` run by :meth:`finished` (once per ``name``)."""
        if name in self.finishers:
            return self
        return attrs.evolve(self, finishers=self.finishers.set(name, finisher))

    def finished(self) -> FileStore:
        """The store after every finisher's last pass over the pending edits (in name
        order). Raises what a finisher raises (an :class:`ApplyError` naming the file)."""
        store = self
        for name in sorted(self.finishers):
            store = self.finishers[name](store)
        return store

    def reset(self) -> FileStore:
        """The store without its pending edits (what it read and changed so far is kept)."""
        return attrs.evolve(self, overlay=pmap())

    def pending(self) -> tuple[Change, ...]:
        """The edits the next flush writes: overlay against disk as last seen, by path."""
        changes = []
        for key in sorted(self.overlay):
            old, new = self.base[key].text, self.overlay[key]
            if old != new:
                changes.append(Change(key, old, new))
        return tuple(changes)

    def changes(self) -> tuple[Change, ...]:
        """Everything the session changed (flushed or pending): first read against now."""
        changes = []
        for key in sorted(self.originals):
            old = self.originals[key]
            new = self.overlay[key] if key in self.overlay else self.base[key].text
            if old != new:
                changes.append(Change(key, old, new))
        return tuple(changes)

    def diffs(self) -> tuple[str, ...]:
        """The paths of :meth:`changes`, sorted."""
        return tuple(change.path for change in self.changes())

    def flush(
        self, *, durable: bool | None = None, on_step: Callable[[str], None] | None = None
    ) -> FileStore:
        """Finish the pending edits (:meth:`finished`), write them to disk, all or none, and
        return the flushed store.

        See :mod:`tai_core.store._flush` for the protocol. Raises
        :class:`~tai_core.store.ConflictError` (nothing written) when a file changed on disk
        since tai read it, :class:`~tai_core.store.FlushError` on a failure.

        :param durable: also survive a power loss: every staged file and the directories
            it touches are synced before the commit point, at the cost of a disk round trip
            per file. ``False`` survives the death of the process at any instant, not a
            power loss. ``None`` (the default): the store's :attr:`durable`, itself ``True``
            unless the store was opened with ``durable=False``.
        :param on_step: called with the name of each protocol step as it completes (for
            tests that stop the process in mid-flush).
        """
        from tai_core.store._flush import flush_store

        chosen = self.durable if durable is None else durable
        return flush_store(self.finished(), durable=chosen, on_step=on_step)

    def flushed(self, written: PMap[str, Seen]) -> FileStore:
        """This store after a flush wrote ``written``: no pending edits, a new base."""
        return attrs.evolve(self, base=self.base.update(written), overlay=pmap())
