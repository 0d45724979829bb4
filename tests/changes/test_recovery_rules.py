"""Recovery's safety checks on real journals: a committed flush rolls forward only over
what it recorded, an uncommitted one leaves nothing behind, an unreadable journal stays."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_core.store import FileStore, FlushError, _key, recover
from tai_core.store._journal import JOURNAL_DIR, Entry, Journal, digest, temp_key, write_plan

from .conftest import write_files

ID = "7-feedbeef"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working directory; tai's journal key lives apart, in a data directory."""
    monkeypatch.setenv("TAI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(_key, "_cached", {})
    (tmp_path / "work").mkdir()
    return tmp_path / "work"


def committed(root: Path, changes: dict[str, bytes | None], *, staged: dict[str, bytes]) -> None:
    """A flush of ``changes`` killed after its commit, before any target was replaced;
    ``staged`` is what its staged files hold (normally the new contents)."""
    entries = []
    for path, new in sorted(changes.items()):
        old = (root / path).read_bytes() if (root / path).exists() else None
        temp = None if new is None else temp_key(path, ID)
        entries.append(Entry(path, temp, digest(old), digest(new)))
        if temp is not None:
            (root / temp).write_bytes(staged[path])
    journal = Journal(id=ID, entries=tuple(entries))
    write_plan(root, journal)
    (root / JOURNAL_DIR / f"{ID}.prepare").replace(root / JOURNAL_DIR / f"{ID}.commit")


def leftovers(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if "tai-" in p.name)


def test_a_committed_flush_rolls_forward(root: Path) -> None:
    write_files(root, {"a.txt": "a\n", "gone.txt": "g\n"})
    committed(root, {"a.txt": b"A\n", "gone.txt": None}, staged={"a.txt": b"A\n"})
    recovery = recover(root)
    assert recovery.completed == ("a.txt", "gone.txt") and not recovery.problems
    assert (root / "a.txt").read_text() == "A\n" and not (root / "gone.txt").exists()
    assert leftovers(root) == []


def test_a_target_changed_since_the_crash_is_kept(root: Path) -> None:
    write_files(root, {"a.txt": "a\n", "gone.txt": "g\n"})
    committed(root, {"a.txt": b"A\n", "gone.txt": None}, staged={"a.txt": b"A\n"})
    (root / "a.txt").write_text("edited after the crash\n")
    (root / "gone.txt").write_text("edited too\n")
    recovery = recover(root)
    assert recovery.problems == (
        "a.txt: changed since the crash; kept, new content dropped",
        "gone.txt: changed since the crash; not deleted",
    )
    assert (root / "a.txt").read_text() == "edited after the crash\n"
    assert (root / "gone.txt").read_text() == "edited too\n"
    assert leftovers(root) == []


def test_a_damaged_staged_file_never_replaces_its_target(root: Path) -> None:
    write_files(root, {"a.txt": "a\n"})
    committed(root, {"a.txt": b"A\n"}, staged={"a.txt": b"A"})  # the power cut its end
    recovery = recover(root)
    assert recovery.problems == ("a.txt: its staged new content is damaged; left as it was",)
    assert (root / "a.txt").read_text() == "a\n"
    assert leftovers(root) == []


def test_an_unreadable_committed_journal_is_left_in_place(root: Path) -> None:
    write_files(root, {"a.txt": "a\n"})
    (root / JOURNAL_DIR).mkdir()
    plan = root / JOURNAL_DIR / f"{ID}.commit"
    plan.write_bytes(b'{"version": 2, "cut off')
    recovery = recover(root)
    assert recovery.problems == (f"{plan}: unreadable flush journal left in place",)
    assert plan.read_bytes() == b'{"version": 2, "cut off'
    assert (root / "a.txt").read_text() == "a\n"


def test_a_prepare_plan_cut_off_while_written_is_removed(root: Path) -> None:
    (root / JOURNAL_DIR).mkdir()
    (root / JOURNAL_DIR / f"{ID}.prepare").write_bytes(b'{"version": 2, "cut off')
    assert not recover(root)
    assert not (root / JOURNAL_DIR).exists()


def test_an_uncommitted_flush_leaves_no_directory_behind(root: Path) -> None:
    write_files(root, {"a.txt": "a\n", "zz": "a file where a directory must go\n"})
    store = FileStore.open(root).write("new/deep/x.txt", "x\n").write("zz/y.txt", "y\n")
    with pytest.raises(FlushError, match="nothing was written"):
        store.flush()  # new/ and new/deep/ are made before zz/ fails
    assert sorted(p.name for p in root.iterdir()) == ["a.txt", "zz"]
