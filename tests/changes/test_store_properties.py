"""The store against a model: random writes, deletes, renames, resets, flushes and edits by
someone else, compared step by step with plain dictionaries.

The model says what the store promises: reads see the overlay, then what the store read
from disk, then the disk; a flush writes exactly the pending edits unless a file it would
write changed on disk since it was read (then it writes nothing); changes are "first read
against now" across rounds; and every store value taken earlier still reads as it did.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from tai_core.store import ApplyError, Change, ConflictError, FileStore

PATHS = ("a.txt", "b.txt", "d/c.txt", "d/e/f.txt")
paths = st.sampled_from(PATHS)
texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)


class StoreModel(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp())
        self.store = FileStore.open(self.root)
        self.disk: dict[str, str] = {}
        self.base: dict[str, str | None] = {}
        self.originals: dict[str, str | None] = {}
        self.overlay: dict[str, str | None] = {}
        self.snapshots: list[tuple[FileStore, dict[str, str | None]]] = []

    def teardown(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    # -- the model ---------------------------------------------------------------------

    def view(self, path: str) -> str | None:
        if path in self.overlay:
            return self.overlay[path]
        if path in self.base:
            return self.base[path]
        return self.disk.get(path)

    def touch(self, path: str) -> None:
        if path not in self.base:
            self.base[path] = self.disk.get(path)
            self.originals.setdefault(path, self.base[path])

    def on_disk(self) -> dict[str, str]:
        return {
            path.relative_to(self.root).as_posix(): path.read_bytes().decode()
            for path in self.root.rglob("*")
            if path.is_file()
        }

    def put_on_disk(self, path: str, text: str | None) -> None:
        target = self.root / path
        if text is None:
            target.unlink(missing_ok=True)
            self.disk.pop(path, None)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode())
            self.disk[path] = text

    # -- rules -------------------------------------------------------------------------

    @rule(path=paths, text=texts)
    def write(self, path: str, text: str) -> None:
        self.store = self.store.write(path, text)
        self.touch(path)
        self.overlay[path] = text

    @rule(path=paths)
    def delete(self, path: str) -> None:
        self.store = self.store.delete(path)
        self.touch(path)
        self.overlay[path] = None

    @rule(old=paths, new=paths)
    def rename(self, old: str, new: str) -> None:
        content = self.view(old)
        if content is None or (old != new and self.view(new) is not None):
            try:
                self.store.rename(old, new)
            except ApplyError:
                return
            raise AssertionError("rename should have been refused")
        self.store = self.store.rename(old, new)
        self.touch(old)
        self.touch(new)
        if old != new:
            self.overlay[old] = None
            self.overlay[new] = content

    @rule()
    def reset(self) -> None:
        self.store = self.store.reset()
        self.overlay = {}

    @rule()
    def snapshot(self) -> None:
        touched = {p: self.view(p) for p in PATHS if p in self.base}
        self.snapshots.append((self.store, touched))

    @rule(path=paths, text=st.none() | texts)
    def edit_by_someone_else(self, path: str, text: str | None) -> None:
        self.put_on_disk(path, text)

    @rule()
    def flush(self) -> None:
        work = {p: v for p, v in self.overlay.items() if v != self.base[p]}
        conflicts = tuple(sorted(p for p in work if self.disk.get(p) != self.base[p]))
        if conflicts:
            try:
                self.store.flush()
            except ConflictError as error:
                assert error.paths == conflicts
                event("flush refused: conflict")
                return
            raise AssertionError(f"expected a conflict on {conflicts}")
        self.store = self.store.flush()
        event("flush wrote files" if work else "flush had nothing to write")
        for path, text in work.items():
            self.disk.pop(path, None) if text is None else self.disk.__setitem__(path, text)
            self.base[path] = text
        self.overlay = {}

    # -- what must hold after every step -----------------------------------------------

    @invariant()
    def reads_match(self) -> None:
        for path in PATHS:
            assert self.store.read(path) == self.view(path), path

    @invariant()
    def changes_match(self) -> None:
        expected = []
        for path in sorted(self.originals):
            now = self.overlay[path] if path in self.overlay else self.base[path]
            if now != self.originals[path]:
                expected.append(Change(path, self.originals[path], now))
        assert self.store.changes() == tuple(expected)
        pending = [
            Change(p, self.base[p], v) for p, v in sorted(self.overlay.items()) if v != self.base[p]
        ]
        assert self.store.pending() == tuple(pending)

    @invariant()
    def disk_matches(self) -> None:
        assert self.on_disk() == self.disk

    @invariant()
    def snapshots_are_unchanged(self) -> None:
        for store, seen in self.snapshots:
            for path, text in seen.items():
                assert store.read(path) == text


StoreModel.TestCase.settings = settings(max_examples=150, stateful_step_count=30)
TestStoreModel = pytest.mark.slow(StoreModel.TestCase)
