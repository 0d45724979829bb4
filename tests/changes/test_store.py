"""The in-memory store: overlay semantics, snapshots, conflicts, flush, diffs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tai_core.store import (
    JOURNAL_DIR,
    ApplyError,
    Change,
    ConflictError,
    FileStore,
    FlushError,
    PathError,
    pending_diff,
    recover,
    render_diff,
)

from .conftest import write_files


def test_reads_see_the_overlay_and_snapshots_stay_as_they_were(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n"})
    before = FileStore.open(tmp_path)
    after = before.write("a.txt", "A\n").write("new.txt", "n\n").delete("a.txt")
    assert before.read("a.txt") == "a\n" and before.read("new.txt") is None
    assert after.read("a.txt") is None and after.read("new.txt") == "n\n"
    assert not after.exists("a.txt") and after.exists("new.txt")
    assert (tmp_path / "a.txt").read_text() == "a\n"
    assert not (tmp_path / "new.txt").exists()


def test_diffs_survive_reset_and_include_flushed_rounds(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n", "b.txt": "b\n"})
    store = FileStore.open(tmp_path).write("a.txt", "A\n").flush()
    assert store.pending() == ()
    store = store.write("b.txt", "B\n")
    assert store.diffs() == ("a.txt", "b.txt")
    store = store.reset()
    assert store.diffs() == ("a.txt",)
    assert store.changes() == (Change("a.txt", "a\n", "A\n"),)
    assert store.read("b.txt") == "b\n"


def test_no_ops_are_skipped(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n"})
    store = FileStore.open(tmp_path).write("a.txt", "changed\n").write("a.txt", "a\n")
    assert store.pending() == () and store.diffs() == ()
    mtime = (tmp_path / "a.txt").stat().st_mtime_ns
    store.flush()
    assert (tmp_path / "a.txt").stat().st_mtime_ns == mtime


def test_rename_and_delete_are_tracked(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n", "gone.txt": "g\n"})
    store = FileStore.open(tmp_path).rename("a.txt", "dir/b.txt").delete("gone.txt")
    assert [(c.path, c.status) for c in store.pending()] == [
        ("a.txt", "deleted"),
        ("dir/b.txt", "created"),
        ("gone.txt", "deleted"),
    ]
    store.flush()
    assert sorted(os.listdir(tmp_path)) == ["dir"]
    assert (tmp_path / "dir/b.txt").read_text() == "a\n"


def test_flush_keeps_permissions_and_binary_content(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o755)
    blob = bytes(range(256))
    (tmp_path / "blob.bin").write_bytes(blob)
    store = FileStore.open(tmp_path)
    store, text = store.load("blob.bin")
    store = store.write("run.sh", "echo new\n").write("copy.bin", text or "")
    store.flush()
    assert script.stat().st_mode & 0o777 == 0o755 and script.read_text() == "echo new\n"
    assert (tmp_path / "copy.bin").read_bytes() == blob


def test_a_file_changed_on_disk_since_read_is_a_conflict(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n", "b.txt": "b\n"})
    store = FileStore.open(tmp_path).write("a.txt", "mine\n").write("b.txt", "mine too\n")
    (tmp_path / "a.txt").write_text("theirs\n")
    with pytest.raises(ConflictError) as caught:
        store.flush()
    assert caught.value.paths == ("a.txt",)
    assert "a.txt changed on disk since tai read it; nothing was written" in str(caught.value)
    assert (tmp_path / "a.txt").read_text() == "theirs\n"
    assert (tmp_path / "b.txt").read_text() == "b\n"


def test_a_file_created_or_deleted_by_someone_else_is_a_conflict(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n"})
    store = FileStore.open(tmp_path).write("new.txt", "mine\n").write("a.txt", "A\n")
    (tmp_path / "new.txt").write_text("theirs\n")
    (tmp_path / "a.txt").unlink()
    with pytest.raises(ConflictError) as caught:
        store.flush()
    assert caught.value.paths == ("a.txt", "new.txt")


def test_a_touch_without_a_content_change_is_no_conflict(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n"})
    store = FileStore.open(tmp_path).write("a.txt", "A\n")
    os.utime(tmp_path / "a.txt", ns=(10**18, 10**18))
    store.flush()
    assert (tmp_path / "a.txt").read_text() == "A\n"


def test_a_same_size_edit_that_keeps_the_time_is_a_conflict_when_read_just_now(
    tmp_path: Path,
) -> None:
    # Read within the file system's timestamp granularity of its last change, a file can
    # be changed again without its time or size showing it: its content decides.
    write_files(tmp_path, {"a.txt": "a\n"})
    store = FileStore.open(tmp_path).write("a.txt", "mine\n")
    before = (tmp_path / "a.txt").stat()
    (tmp_path / "a.txt").write_text("b\n")
    os.utime(tmp_path / "a.txt", ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(ConflictError):
        store.flush()
    assert (tmp_path / "a.txt").read_text() == "b\n"


def test_own_flushes_are_not_conflicts_but_later_edits_are(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n"})
    store = FileStore.open(tmp_path).write("a.txt", "1\n").flush()
    store = store.write("a.txt", "2\n").flush()
    assert (tmp_path / "a.txt").read_text() == "2\n"
    (tmp_path / "a.txt").write_text("edited by hand\n")
    with pytest.raises(ConflictError):
        store.write("a.txt", "3\n").flush()


def test_failed_staging_rolls_back_and_leaves_no_trace(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n", "blocker": "a file where a directory must go\n"})
    store = FileStore.open(tmp_path).write("a.txt", "A\n").write("blocker/x.txt", "x\n")
    with pytest.raises(FlushError, match="nothing was written"):
        store.flush()
    assert (tmp_path / "a.txt").read_text() == "a\n"
    assert sorted(os.listdir(tmp_path)) == ["a.txt", "blocker"]


def test_flush_steps_and_journal_removed_last(tmp_path: Path) -> None:
    seen: list[tuple[str, bool]] = []

    def step(name: str) -> None:
        seen.append((name, (tmp_path / JOURNAL_DIR).exists()))

    FileStore.open(tmp_path).write("b.txt", "b\n").write("a.txt", "a\n").flush(on_step=step)
    assert seen == [
        ("journal", True),
        ("stage a.txt", True),
        ("stage b.txt", True),
        ("commit", True),
        ("replace a.txt", True),
        ("replace b.txt", True),
        ("done", False),
    ]


def test_durable_flush_writes_the_same(tmp_path: Path) -> None:
    FileStore.open(tmp_path).write("d/a.txt", "a\n").flush(durable=True)
    assert (tmp_path / "d/a.txt").read_text() == "a\n"
    assert not recover(tmp_path)


def test_finishers_run_before_a_diff_and_a_flush(tmp_path: Path) -> None:
    def shout(store: FileStore) -> FileStore:
        for change in store.pending():
            if change.new is not None:
                store = store.write(change.path, change.new.upper())
        return store

    store = FileStore.open(tmp_path).write("a.txt", "quiet\n").with_finisher("shout", shout)
    assert store.read("a.txt") == "quiet\n"
    assert pending_diff(store) == "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+QUIET\n"
    store = store.flush()
    assert (tmp_path / "a.txt").read_text() == "QUIET\n"
    assert store.with_finisher("shout", shout) is store


def test_a_failing_finisher_writes_nothing(tmp_path: Path) -> None:
    def refuse(store: FileStore) -> FileStore:
        raise ApplyError("a.txt: refused by the finisher")

    store = FileStore.open(tmp_path).write("a.txt", "x\n").with_finisher("refuse", refuse)
    with pytest.raises(ApplyError, match="refused by the finisher"):
        store.flush()
    assert list(tmp_path.iterdir()) == []


def test_render_diff_plain_and_coloured() -> None:
    changes = (
        Change("a.txt", "one\ntwo\n", "one\n2\n"),
        Change("new.txt", None, "n"),
        Change("old.txt", "o\n", None),
    )
    plain = render_diff(changes, color=False)
    assert plain == (
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+n\n\\ No newline at end of file\n"
        "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-o\n"
    )
    coloured = render_diff(changes, color=True)
    assert "\x1b[31m-two\x1b[0m\n" in coloured and "\x1b[32m+2\x1b[0m\n" in coloured
    assert "\x1b[" not in plain


def test_pending_diff_is_the_overlay_against_disk(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n"})
    store = FileStore.open(tmp_path).write("a.txt", "b\n")
    assert pending_diff(store) == "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n"
    assert pending_diff(store.flush()) == ""


def test_touch_records_the_disk_state_a_later_flush_is_checked_against(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n"})
    store = FileStore.open(tmp_path).touch("./a.txt")
    (tmp_path / "a.txt").write_text("someone else's\n")
    with pytest.raises(ConflictError):
        store.write("a.txt", "mine\n").flush()
    with pytest.raises(PathError):
        store.touch("../outside.txt")


def test_why_a_flush_failed_in_words() -> None:
    import errno

    from tai_core.store._flush import reason

    assert reason(OSError(errno.EFBIG, "File too large")) == (
        "file too large (over the file-size limit: ulimit -f, or the file system's)"
    )
    assert reason(OSError(errno.ENOSPC, "No space left on device")) == "No space left on device"
    assert reason(OSError("no errno at all")) == "no errno at all"


def test_a_directory_read_as_a_file_is_named_as_the_run_names_it(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    store = FileStore.open(tmp_path)
    for read in (store.read, store.load):
        with pytest.raises(PathError) as refused:
            read("sub")
        assert str(refused.value) == "sub: is a directory, not a file"
