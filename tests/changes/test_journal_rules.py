"""Recovery carries out only journals tai signed for the directory, within a flush's rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_core.store import _key
from tai_core.store._journal import Entry, ForeignJournal, Journal, recover_locked, temp_key


@pytest.fixture(autouse=True)
def key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(_key, "_cached", {})


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
        (journal(delete("a/./b")), "not a plain path"),
        (journal(delete("a\0b")), "not a plain path"),
        (journal(delete("")), "not a plain path"),
        (Journal(id="1/abc", entries=(delete("x"),)), "not a flush id"),
        (journal(delete("a/b/c"), dirs=("a/b/c",)), "not a directory of its files"),
        (journal(delete("a/b/c"), dirs=("",)), "not a directory of its files"),
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


def test_the_directories_of_its_files_are_allowed(tmp_path: Path) -> None:
    plan = journal(delete("a/b/c.txt"), dirs=("a", "a/b"))
    assert Journal.load(tmp_path, plan.dump(tmp_path)) == plan


def test_a_link_deeper_down_leading_out_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (root / "sub" / "out").symlink_to(tmp_path / "outside")
    with pytest.raises(ForeignJournal, match="leads outside"):
        Journal.load(root, journal(delete("sub/out/victim.txt")).dump(root))


@pytest.mark.parametrize("change", [lambda d: d.pop("mac"), lambda d: d.update(version=1)])
def test_an_unsigned_or_other_version_journal_is_refused(tmp_path: Path, change) -> None:
    import json

    document = json.loads(journal(delete("x")).dump(tmp_path))
    change(document)
    with pytest.raises(ForeignJournal, match=r"^it is not signed by tai$"):
        Journal.load(tmp_path, json.dumps(document).encode())


def test_what_recovery_says() -> None:
    from tai_core.store._journal import Recovery

    assert not Recovery("/d")
    assert Recovery("/d", completed=("a",)) and Recovery("/d", rolled_back=("a",))
    assert Recovery("/d", problems=("p",))
    assert Recovery("/d", ("a", "b"), ("c",), ("p1", "p2")).messages() == [
        "completed an interrupted flush in /d: a, b",
        "rolled back an interrupted flush in /d (files unchanged): c",
        "p1",
        "p2",
    ]
    assert Recovery("/d").messages() == []
    many = tuple(f"f{n}" for n in range(25))  # a large flush: one line still
    assert Recovery("/d", rolled_back=many).messages() == [
        "rolled back an interrupted flush in /d (files unchanged): "
        + ", ".join(many[:10]) + " and 15 more"
    ]  # fmt: skip


def test_nothing_to_recover_names_the_real_directory(tmp_path: Path) -> None:
    from tai_core.store import recover

    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    recovery = recover(tmp_path / "link")
    assert recovery.directory == str(tmp_path / "real") and not recovery
