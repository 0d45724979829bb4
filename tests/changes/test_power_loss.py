"""A power loss at every sync point of a flush: what was not synced is gone.

A process kill leaves the kernel's page cache intact (tests/changes/test_crash.py); a power
loss does not. The double here records what the real flush syncs, on a real directory: an
``fsync`` of a file makes that inode's content durable, an ``fsync`` of a directory makes
its entries (names → inodes) durable. At the n-th sync point the "power fails": the tree
is rebuilt from the durable entries and contents alone — a file whose content was never
synced comes back empty, an entry never synced is not there (or is its old self) — and
recovery runs as at the next start. Every file must then be wholly old or wholly new, and
all of them the same one (the flush is one transaction).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tai_core.store import FileStore, recover


class PowerLoss(BaseException):
    """Raised at the chosen sync point (a BaseException: the flush must not catch it)."""


class Disk:
    """The durable state of the directory tree under ``root``, kept by watching syncs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        #: Directory (relative, "" for root) -> {name: inode, or "dir" for a directory}.
        self.entries: dict[str, dict[str, object]] = {}
        #: Inode -> durable content.
        self.content: dict[int, bytes] = {}
        for directory, _dirs, files in os.walk(root):
            self._sync_dir(Path(directory))
            for name in files:
                path = Path(directory) / name
                self.content[path.stat().st_ino] = path.read_bytes()
        self.syncs = 0

    def _relative(self, path: Path) -> str:
        relative = path.relative_to(self.root).as_posix()
        return "" if relative == "." else relative

    def _sync_dir(self, path: Path) -> None:
        listing: dict[str, object] = {}
        for entry in os.scandir(path):
            info = entry.stat(follow_symlinks=False)
            listing[entry.name] = "dir" if stat.S_ISDIR(info.st_mode) else info.st_ino
        self.entries[self._relative(path)] = listing

    def created(self, fd: int) -> None:
        """A new inode: nothing of its content is durable yet (inode numbers are reused)."""
        self.content[os.fstat(fd).st_ino] = b""

    def synced(self, fd: int) -> None:
        info = os.fstat(fd)
        path = Path(os.readlink(f"/proc/self/fd/{fd}"))
        if stat.S_ISDIR(info.st_mode):
            self._sync_dir(path)
        else:
            self.content[info.st_ino] = Path(f"/proc/self/fd/{fd}").read_bytes()

    def lose_power(self) -> None:
        """Replace the tree by what was durable."""
        shutil.rmtree(self.root)
        self._rebuild("")

    def _rebuild(self, directory: str) -> None:
        (self.root / directory).mkdir(exist_ok=True)
        for name, inode in self.entries.get(directory, {}).items():
            relative = f"{directory}/{name}" if directory else name
            if inode == "dir":
                self._rebuild(relative)
            else:
                assert isinstance(inode, int)
                (self.root / relative).write_bytes(self.content.get(inode, b""))


_REAL_FSYNC, _REAL_OPEN = os.fsync, os.open


@contextlib.contextmanager
def watching(disk: Disk, fail_at: int | None) -> Iterator[None]:
    """Record syncs on ``disk`` while the block runs; the power fails right after sync
    number ``fail_at`` (from 1; ``None``: never; callers do nothing for 0, a power loss
    before the first sync). The block ends at the power loss as the machine would:
    nothing after it runs."""

    def fsync(fd: int) -> None:
        _REAL_FSYNC(fd)
        disk.synced(fd)
        disk.syncs += 1
        if disk.syncs == fail_at:
            raise PowerLoss

    def open_(path, flags, mode=0o777, *, dir_fd=None):
        fd = _REAL_OPEN(path, flags, mode, dir_fd=dir_fd)
        if flags & os.O_CREAT and flags & (os.O_EXCL | os.O_TRUNC):
            disk.created(fd)
        return fd

    os.fsync, os.open = fsync, open_
    try:
        yield
    except PowerLoss:
        pass
    finally:
        os.fsync, os.open = _REAL_FSYNC, _REAL_OPEN


OLD = {"a.txt": b"old a\n", "sub/b.txt": b"old b\n", "gone.txt": b"delete me\n"}
NEW = {"a.txt": b"new a\n", "sub/b.txt": b"new b\n", "gone.txt": None, "made/c.txt": b"new c\n"}


def _setup(root: Path) -> FileStore:
    for name, data in OLD.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    store = FileStore.open(root)
    for name, data in NEW.items():
        store = store.delete(name) if data is None else store.write(name, data.decode())
    return store


def _state(root: Path) -> dict[str, bytes | None]:
    return {name: (root / name).read_bytes() if (root / name).is_file() else None for name in NEW}


def _old() -> dict[str, bytes | None]:
    return {name: OLD.get(name) for name in NEW}


def test_durable_flush_survives_power_loss_at_every_sync_point(tmp_path: Path) -> None:
    """Exhaustive over the sync points of one flush (few enough to try each)."""
    counting = Disk(_root(tmp_path, "count"))
    with watching(counting, None):
        _setup(counting.root).flush()
    assert counting.syncs >= 2 * len(NEW)  # the staged files and their directories
    outcomes = set()
    for fail_at in range(counting.syncs + 1):
        root = _root(tmp_path, f"at{fail_at}")
        store = _setup(root)
        disk = Disk(root)
        with watching(disk, fail_at):
            if fail_at:
                store.flush()
        disk.lose_power()
        recover(root)
        state = _state(root)
        assert state in (_old(), NEW), f"power loss after sync {fail_at}: {state}"
        assert not (root / ".tai-journal").exists()
        outcomes.add("new" if state == NEW else "old")
    assert outcomes == {"old", "new"}  # the commit point lies between the first and last


def _root(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    root.mkdir()
    return root


@settings(max_examples=30)
@given(data=st.data())
def test_power_loss_property(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    """Hypothesis over the files of a flush and the sync point the power fails at."""
    names = data.draw(
        st.lists(
            st.sampled_from(["x.txt", "d/y.txt", "d/e/z.txt", "w.txt"]), unique=True, min_size=1
        )
    )
    old_present = data.draw(st.lists(st.booleans(), min_size=len(names), max_size=len(names)))
    new_present = data.draw(st.lists(st.booleans(), min_size=len(names), max_size=len(names)))
    root = tmp_path_factory.mktemp("power")
    old: dict[str, bytes | None] = {}
    for name, present in zip(names, old_present, strict=True):
        old[name] = f"old {name}\n".encode() if present else None
        if present:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(old[name])
    store = FileStore.open(root)
    new: dict[str, bytes | None] = {}
    for name, present in zip(names, new_present, strict=True):
        new[name] = f"new {name}\n".encode() if present else None
        store = store.write(name, new[name].decode()) if present else store.delete(name)
    disk = Disk(root)
    fail_at = data.draw(st.integers(min_value=0, max_value=3 * len(names) + 6))
    with watching(disk, fail_at):
        if fail_at:
            store.flush()
    disk.lose_power()
    recover(root)
    state = {
        name: (root / name).read_bytes() if (root / name).is_file() else None for name in names
    }
    assert state in (old, new)


def test_without_durable_a_power_loss_can_lose_the_new_content(tmp_path: Path) -> None:
    """The double is strict enough to see what ``durable = false`` gives up: a power loss
    after the (always synced) commit finds staged files whose content never reached the
    disk, and recovery keeps the old content of those — the files then disagree."""
    root = tmp_path / "fast"
    root.mkdir()
    store = _setup(root)
    disk = Disk(root)
    with watching(disk, None):
        store.flush(durable=False)
    disk.lose_power()
    recover(root)
    assert _state(root) not in (_old(), NEW)
