"""One flush per directory at a time: a flush waits while another process holds the
directory's lock, and gives up, writing nothing, when the wait outlasts its limit."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tai_core.store import FileStore, FlushError
from tai_core.store._lock import directory_lock
from tests.processes import wait_for

from .conftest import write_files

HOLDER = """\
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
fcntl.flock(fd, fcntl.LOCK_SH)
print("held", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def held(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the flush lock of ``tmp_path`` until its stdin closes; a
    shared hold, so a flush that took a shared lock itself would not wait."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    yield holder
    holder.kill()
    holder.wait()


def waiting_for_the_lock(thread: threading.Thread) -> bool:
    """Whether ``thread`` has tried the lock and sleeps before the next try (the kernel
    says where a thread sleeps)."""
    wchan = Path(f"/proc/self/task/{thread.native_id}/wchan")
    return "nanosleep" in wchan.read_text()


def test_a_flush_waits_for_the_holder_then_writes(tmp_path: Path, held) -> None:
    write_files(tmp_path, {"a.txt": "a\n"})
    store = FileStore.open(tmp_path).write("a.txt", "A\n")
    flusher = threading.Thread(target=store.flush, daemon=True)
    flusher.start()
    wait_for(lambda: waiting_for_the_lock(flusher) or not flusher.is_alive(), "the flush to wait")
    assert flusher.is_alive(), "the flush ended while another process held the lock"
    assert (tmp_path / "a.txt").read_text() == "a\n"  # nothing written while it waits
    held.stdin.close()
    held.wait()
    flusher.join(timeout=60)
    assert not flusher.is_alive()
    assert (tmp_path / "a.txt").read_text() == "A\n"


def test_a_wait_past_the_limit_writes_nothing(tmp_path: Path, held) -> None:
    failures: list[BaseException] = []

    def lock() -> None:
        try:
            with directory_lock(tmp_path, timeout=0):
                pass
        except FlushError as error:
            failures.append(error)

    locker = threading.Thread(target=lock, daemon=True)
    locker.start()
    locker.join(timeout=60)  # a hang guard: with no limit the lock would wait forever
    assert not locker.is_alive()
    (error,) = failures
    assert f"another tai process has been writing to {tmp_path} for over 0 s" in str(error)
    assert "nothing was written" in str(error)


def test_the_lock_is_a_directory_s(tmp_path: Path) -> None:
    """The lock is taken on the working directory itself: a root that is a file is no
    working directory, and no lock is taken on it."""
    afile = tmp_path / "file"
    afile.write_text("x")
    with pytest.raises(NotADirectoryError), directory_lock(afile):
        pass
