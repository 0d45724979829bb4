"""Recovery carries out only journals tai signed for the directory, within a flush's rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_core.store import _key
from tai_core.store._journal import Entry, ForeignJournal, Journal, recover_locked, temp_key


@pytest.fixture(autouse=True)
def key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(_key, "_cached", None)


def journal(*entries: Entry, dirs: tuple[str, ...] = ()) -> Journal:
    return Journal(id="1-abc", entries=entries, dirs=dirs)


def delete(path: str) -> Entry:
    return Entry(path=path, temp=None, old=None, new=None)


def test_a_journal_tai_signed_loads(tmp_path: Path) -> None:
    plan = journal(Entry("a/b.txt", temp_key("a/b.txt", "1-abc"), None, "00"), dirs=("a",))
    assert Journal.load(tmp_path, plan.dump(tmp_path)) == plan


def test_a_journal_of_another_directory_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other"
    with pytest.raises(ForeignJournal, match="signature"):
        Journal.load(tmp_path, journal(delete("x")).dump(other))


@pytest.mark.parametrize(
    ("plan", "reason"),
    [
        (journal(delete("../outside.txt")), "not a plain path"),
        (journal(delete("/etc/passwd")), "not a plain path"),
        (journal(delete("a//b")), "not a plain path"),
        (journal(delete(".git/config")), "protected"),
        (journal(delete("sub/.vscode/tasks.json")), "protected"),
        (journal(Entry("x.txt", "../x.txt.tmp", None, "00")), "not the staged name"),
        (journal(delete("x.txt"), dirs=("elsewhere",)), "not a directory of its files"),
        (Journal(id="../1", entries=(delete("x"),)), "not a flush id"),
    ],
)
def test_a_signed_journal_that_breaks_the_rules_is_refused(
    tmp_path: Path, plan: Journal, reason: str
) -> None:
    with pytest.raises(ForeignJournal, match=reason):
        Journal.load(tmp_path, plan.dump(tmp_path))


def test_a_link_leading_out_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    (root / "out").symlink_to(tmp_path / "outside")
    with pytest.raises(ForeignJournal, match="leads outside"):
        Journal.load(root, journal(delete("out/victim.txt")).dump(root))


def test_recovery_leaves_a_refused_journal_and_touches_nothing(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / ".tai-journal").mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    plan = journal(delete("../victim.txt"))
    (root / ".tai-journal" / "1-abc.commit").write_bytes(plan.dump(root))
    recovery = recover_locked(root)
    assert victim.read_text() == "keep\n"
    assert (root / ".tai-journal" / "1-abc.commit").exists()
    assert (
        recovery.problems and "refused, not a flush journal tai wrote here" in recovery.problems[0]
    )
