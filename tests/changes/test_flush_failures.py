"""A flush that fails, in this process, at each step it can fail at: what the user is
told (the step and the reason, word for word), what is left on disk, and how the next
recovery ends it.

Failures are real where this machine can make them: a file-size limit (``RLIMIT_FSIZE``,
which binds root too), a file where a directory must go, a directory where a file must
go, a file another program removed. Only what cannot be provoked here — an I/O error of
the disk on ``fsync``, a full disk at the commit's rename — is injected, at the function
the flush calls for it. Crashes are the flush stopped at one of its steps (``on_step``
raising), so that what it leaves is what a killed process leaves at that instant.
"""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import signal
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tai_core.store import (
    JOURNAL_DIR,
    ConflictError,
    FileStore,
    FlushError,
    _flush,
    _journal,
    recover,
)
from tai_core.store._journal import Entry, Journal

from .conftest import write_files

TOO_LARGE = "file too large (over the file-size limit: ulimit -f, or the file system's)"


class Stop(Exception):
    """The flush's process dies here."""


@contextlib.contextmanager
def file_size_limit(limit: int) -> Iterator[None]:
    """Writes past ``limit`` bytes fail with ``EFBIG`` (instead of killing the process)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)


def stop_at(name: str, before: Callable[[], None] = lambda: None) -> Callable[[str], None]:
    """An ``on_step`` that runs ``before`` and stops the flush at step ``name``."""

    def step(seen: str) -> None:
        if seen == name:
            before()
            raise Stop(name)

    return step


def failing_fsync(monkeypatch, module, fails: Callable[[Path], bool]) -> list[Path]:
    """``module``'s ``fsync_dir`` fails with EIO where ``fails``; returns the calls."""
    calls: list[Path] = []
    real = module.fsync_dir

    def fsync_dir(path: Path) -> None:
        calls.append(path)
        if fails(path):
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        real(path)

    monkeypatch.setattr(module, "fsync_dir", fsync_dir)
    return calls


def listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


# -- before the commit: nothing is written, nothing is left ----------------------------


def test_a_journal_cut_short_by_a_file_size_limit_fails_the_flush(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n"})
    store = FileStore.open(tmp_path).write("a.txt", "A\n")
    with file_size_limit(16), pytest.raises(FlushError) as failed:
        store.flush()
    assert str(failed.value) == (
        f"nothing was written: cannot write the flush journal in {tmp_path}: {TOO_LARGE}"
    )
    assert listing(tmp_path) == ["a.txt"]  # no partial plan, no journal directory
    assert (tmp_path / "a.txt").read_text() == "a\n"


def test_a_journal_directory_that_cannot_be_synced_fails_the_flush_and_goes(
    tmp_path: Path, monkeypatch
) -> None:
    failing_fsync(monkeypatch, _journal, lambda path: path == tmp_path)  # after its mkdir
    write_files(tmp_path, {"a.txt": "a\n"})
    with pytest.raises(FlushError) as failed:
        FileStore.open(tmp_path).write("a.txt", "A\n").flush()
    assert str(failed.value) == (
        f"nothing was written: cannot write the flush journal in {tmp_path}: Input/output error"
    )
    assert listing(tmp_path) == ["a.txt"]


def test_a_file_in_the_journal_s_place_is_reported_and_kept(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n", JOURNAL_DIR: "someone's notes\n"})
    with pytest.raises(FlushError) as failed:
        FileStore.open(tmp_path).write("a.txt", "A\n").flush()
    assert str(failed.value) == (
        f"nothing was written: cannot write the flush journal in {tmp_path}: File exists"
    )
    assert (tmp_path / JOURNAL_DIR).read_text() == "someone's notes\n"
    assert (tmp_path / "a.txt").read_text() == "a\n"


def test_a_file_too_large_to_stage_is_named(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n"})
    store = FileStore.open(tmp_path).write("a.txt", "A\n").write("big.txt", "x" * 65536)
    with file_size_limit(8192), pytest.raises(FlushError) as failed:
        store.flush()
    assert str(failed.value) == f"nothing was written: cannot stage big.txt: {TOO_LARGE}"
    assert listing(tmp_path) == ["a.txt"]


def test_a_directory_that_cannot_be_made_is_named(tmp_path: Path) -> None:
    write_files(tmp_path, {"blocker": "a file\n"})
    with pytest.raises(FlushError) as failed:
        FileStore.open(tmp_path).write("new/x.txt", "x\n").write("blocker/y.txt", "y\n").flush()
    assert (
        str(failed.value) == "nothing was written: cannot make the directory blocker: File exists"
    )
    assert listing(tmp_path) == ["blocker"]  # "new", made first, is gone again


@pytest.mark.parametrize(("directory", "named"), [("d", "d"), ("", "{root}")])
def test_a_directory_that_cannot_be_synced_before_the_commit_undoes_the_flush(
    tmp_path: Path, monkeypatch, directory: str, named: str
) -> None:
    failing_fsync(monkeypatch, _flush, lambda path: path == tmp_path / directory)
    with pytest.raises(FlushError) as failed:
        FileStore.open(tmp_path).write("d/a.txt", "a\n").flush(durable=True)
    where = named.format(root=tmp_path)
    assert str(failed.value) == (
        f"nothing was written: cannot sync the directory {where}: Input/output error"
    )
    assert listing(tmp_path) == []


def test_a_commit_that_cannot_be_made_undoes_the_flush(tmp_path: Path, monkeypatch) -> None:
    write_files(tmp_path, {"a.txt": "a\n"})

    def full(root: Path, journal: Journal) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(_flush, "commit_plan", full)
    with pytest.raises(FlushError) as failed:
        FileStore.open(tmp_path).write("a.txt", "A\n").write("n/b.txt", "b\n").flush()
    assert str(failed.value) == (
        "nothing was written: cannot commit the flush: No space left on device"
    )
    assert listing(tmp_path) == ["a.txt"] and (tmp_path / "a.txt").read_text() == "a\n"


def test_staging_syncs_new_entries_deepest_first_only_when_durable(
    tmp_path: Path, monkeypatch
) -> None:
    calls = failing_fsync(monkeypatch, _flush, lambda path: False)

    def flush(root: Path, durable: bool) -> None:
        root.mkdir()
        store = FileStore.open(root).write("a/b/c.txt", "c\n").write("a/x.txt", "x\n")
        store.write("z.txt", "z\n").flush(durable=durable)

    flush(tmp_path / "quick", durable=False)
    assert calls == []
    root = tmp_path / "durable"
    flush(root, durable=True)
    staged, renamed = calls[:3], calls[3:]
    assert staged == [root / "a/b", root / "a", root]  # before the commit
    assert renamed == [root, root / "a", root / "a/b"]  # after the renames


@pytest.mark.parametrize(
    ("opened", "flushed", "synced"),
    [
        ({}, {}, True),
        ({"durable": False}, {}, False),
        ({"durable": False}, {"durable": True}, True),
    ],
)
def test_a_store_is_durable_unless_opened_or_flushed_otherwise(
    tmp_path: Path, monkeypatch, opened: dict, flushed: dict, synced: bool
) -> None:
    calls = failing_fsync(monkeypatch, _flush, lambda path: False)
    store = FileStore.open(tmp_path, **opened).write("a.txt", "a\n").flush(**flushed)
    assert bool(calls) == synced
    assert store.pending() == () and store.write("a.txt", "b\n").pending()


def test_a_conflict_names_the_directory_and_the_file(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n"})
    store = FileStore.open(tmp_path).write("a.txt", "A\n")
    (tmp_path / "a.txt").write_text("someone else's\n")
    with pytest.raises(ConflictError) as failed:
        store.flush()
    assert str(failed.value) == (
        f"write conflict in {tmp_path}: a.txt changed on disk since tai read it; nothing "
        "was written (re-read and retry)"
    )


# -- what a flush leaves, and its steps --------------------------------------------------


def test_new_files_and_the_journal_get_the_usual_permissions(tmp_path: Path) -> None:
    modes: list[int] = []

    def step(name: str) -> None:
        if name == "journal":
            (plan,) = (tmp_path / JOURNAL_DIR).iterdir()
            modes.append(stat.S_IMODE(plan.stat().st_mode))

    old = os.umask(0o022)
    try:
        FileStore.open(tmp_path).write("new.txt", "n\n").flush(on_step=step)
    finally:
        os.umask(old)
    assert modes == [0o644]
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o644


def test_the_steps_name_what_is_replaced_and_what_is_deleted(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n", "c.txt": "c\n"})
    seen: list[str] = []
    FileStore.open(tmp_path).write("a.txt", "A\n").delete("c.txt").flush(on_step=seen.append)
    assert seen == ["journal", "stage a.txt", "commit", "replace a.txt", "delete c.txt", "done"]


def test_a_file_someone_deleted_meanwhile_is_simply_gone(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n", "c.txt": "c\n"})

    def step(name: str) -> None:
        if name == "commit":
            (tmp_path / "c.txt").unlink()

    FileStore.open(tmp_path).write("a.txt", "A\n").delete("c.txt").flush(on_step=step)
    assert listing(tmp_path) == ["a.txt"] and not recover(tmp_path)


# -- after the commit: the flush completes, now or at the next start ---------------------


def test_a_failed_sync_of_the_committed_journal_does_not_undo_the_flush(
    tmp_path: Path, monkeypatch
) -> None:
    journal = tmp_path / JOURNAL_DIR
    failing_fsync(
        monkeypatch, _journal, lambda path: path == journal and any(journal.glob("*.commit"))
    )
    write_files(tmp_path, {"a.txt": "a\n"})
    FileStore.open(tmp_path).write("a.txt", "A\n").flush()
    assert listing(tmp_path) == ["a.txt"] and (tmp_path / "a.txt").read_text() == "A\n"


def test_a_target_that_cannot_be_replaced_interrupts_and_the_next_start_completes(
    tmp_path: Path,
) -> None:
    write_files(tmp_path, {"a.txt": "a\n", "b.txt": "b\n"})

    def step(name: str) -> None:
        if name == "commit":  # a directory, not empty, takes b.txt's place
            (tmp_path / "b.txt").unlink()
            write_files(tmp_path, {"b.txt/inside": "x\n"})

    store = FileStore.open(tmp_path).write("a.txt", "A\n").write("b.txt", "B\n")
    with pytest.raises(FlushError) as failed:
        store.flush(on_step=step)
    assert str(failed.value) == (
        f"flush interrupted (b.txt: Is a directory); its journal stays in "
        f"{tmp_path}/.tai-journal and the next start of tai completes it"
    )
    assert (tmp_path / "a.txt").read_text() == "A\n"
    (tmp_path / "b.txt/inside").unlink()
    (tmp_path / "b.txt").rmdir()
    (tmp_path / "b.txt").write_text("b\n")
    recovery = recover(tmp_path)
    assert recovery.completed == ("a.txt", "b.txt")
    assert recovery.messages() == [f"completed an interrupted flush in {tmp_path}: a.txt, b.txt"]
    assert (tmp_path / "b.txt").read_text() == "B\n" and listing(tmp_path) == ["a.txt", "b.txt"]


def test_a_directory_that_cannot_be_synced_after_the_renames_interrupts(
    tmp_path: Path, monkeypatch
) -> None:
    committed: list[str] = []
    failing_fsync(monkeypatch, _flush, lambda path: bool(committed) and path == tmp_path)
    store = FileStore.open(tmp_path).write("a.txt", "A\n")
    with pytest.raises(FlushError) as failed:
        store.flush(durable=True, on_step=lambda name: name == "commit" and committed.append(name))
    assert str(failed.value) == (
        f"flush interrupted ({tmp_path}: Input/output error); its journal stays in "
        f"{tmp_path}/.tai-journal and the next start of tai completes it"
    )
    assert recover(tmp_path).completed == ("a.txt",)


# -- recovery ----------------------------------------------------------------------------


def test_a_flush_stopped_before_its_commit_is_rolled_back(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n"})
    store = FileStore.open(tmp_path).write("a.txt", "A\n").write("n/b.txt", "b\n")
    with pytest.raises(Stop):
        store.flush(on_step=stop_at("stage n/b.txt"))
    recovery = recover(tmp_path)
    assert recovery.directory == str(tmp_path)
    assert recovery.rolled_back == ("a.txt", "n/b.txt") and recovery.completed == ()
    assert recovery.messages() == [
        f"rolled back an interrupted flush in {tmp_path} (files unchanged): a.txt, n/b.txt"
    ]
    assert listing(tmp_path) == ["a.txt"] and (tmp_path / "a.txt").read_text() == "a\n"


@pytest.mark.parametrize(
    ("planted", "problem"),
    [
        (b'{"version": 2, "id": "0", "entries": [], "dirs": [], "mac": "00"}', "refused"),
        (b"{ torn", "unreadable flush journal left in place"),
    ],
)
def test_a_bad_journal_does_not_keep_recovery_from_the_next(
    tmp_path: Path, planted: bytes, problem: str
) -> None:
    write_files(tmp_path, {"a.txt": "a\n"})
    with pytest.raises(Stop):
        FileStore.open(tmp_path).write("a.txt", "A\n").flush(on_step=stop_at("commit"))
    bad = tmp_path / JOURNAL_DIR / "0.commit"  # sorted before every flush id (a pid)
    bad.write_bytes(planted)
    recovery = recover(tmp_path)
    assert recovery.completed == ("a.txt",) and (tmp_path / "a.txt").read_text() == "A\n"
    (found,) = recovery.problems
    assert found.startswith(f"{bad}: ") and problem in found
    assert bad.read_bytes() == planted  # left for the user
    FileStore.open(tmp_path).write("a.txt", "again\n").flush()  # beside the journal left
    assert (tmp_path / "a.txt").read_text() == "again\n"


def test_a_file_changed_since_the_crash_does_not_keep_the_others_from_completing(
    tmp_path: Path,
) -> None:
    write_files(tmp_path, {"a.txt": "a\n", "b.txt": "b\n"})
    store = FileStore.open(tmp_path).delete("a.txt").write("b.txt", "B\n")
    with pytest.raises(Stop):
        store.flush(on_step=stop_at("commit"))
    (tmp_path / "a.txt").write_text("edited after the crash\n")
    recovery = recover(tmp_path)
    assert recovery.completed == ("b.txt",)
    assert recovery.problems == ("a.txt: changed since the crash; not deleted",)
    assert (tmp_path / "a.txt").read_text() == "edited after the crash\n"
    assert (tmp_path / "b.txt").read_text() == "B\n"


def test_the_journal_s_signed_form_and_written_form_stay_as_they_are() -> None:
    """Journals outlive the process that wrote them (and may meet another version of tai):
    the bytes signed and the layout written are fixed."""
    assert Journal._canonical({"b": 1, "a": "é"}) == '{"a": "é", "b": 1}'.encode()
    journal = Journal(id="1-ab", entries=(Entry("é.txt", ".é.txt.1-ab.tai-tmp", None, "00"),))
    written = journal.dump(Path("/nonexistent/root"))
    assert written.startswith(b'{\n "version": 2,\n "id": "1-ab",\n "entries": [\n  {\n')
    assert '"path": "é.txt"'.encode() in written
