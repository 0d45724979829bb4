"""What the store records of a file when it reads one (tai_core.store._store.Seen), and how
it later tells whether another program changed the file: content decides, except that an
unchanged modification time and size, set well before tai read the file, are trusted
without reading it again (the racy window is ``RACY_NS``)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from tai_core.store import PathError
from tai_core.store._store import RACY_NS, Seen

LONG_AGO = 1_600_000_000_000_000_000  # 2020, far outside the racy window of any read now


def settled(path: Path, text: str) -> Seen:
    """``text`` written to ``path`` with a modification time long past, then read."""
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(LONG_AGO, LONG_AGO))
    return Seen.observe(path)


def test_a_read_records_text_fingerprint_and_when(tmp_path: Path) -> None:
    seen = settled(tmp_path / "a.txt", "héllo\n")
    assert seen.text == "héllo\n"
    assert (seen.mtime_ns, seen.size) == (LONG_AGO, len("héllo\n".encode()))
    assert seen.digest == hashlib.sha256("héllo\n".encode()).digest()
    assert seen.read_ns > LONG_AGO + RACY_NS


def test_an_absent_file_is_recorded_as_absent(tmp_path: Path) -> None:
    for missing in (tmp_path / "none.txt", tmp_path / "none" / "deeper.txt"):
        seen = Seen.observe(missing)
        assert seen.text is None
        assert seen.unchanged_on_disk(missing)
        missing.parent.mkdir(exist_ok=True)
        missing.write_text("now here\n")
        assert not seen.unchanged_on_disk(missing)


@pytest.mark.parametrize("name", ["", "shown/name.txt"])
def test_what_is_not_a_regular_file_is_refused_by_name(tmp_path: Path, name: str) -> None:
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "loop").symlink_to("loop")
    expected = {
        "dir": "is a directory, not a file",
        "fifo": "is not a regular file",
        "loop": "cannot be read: Too many levels of symbolic links",
    }
    for entry, reason in expected.items():
        with pytest.raises(PathError) as raised:
            Seen.observe(tmp_path / entry, name)
        assert str(raised.value) == f"{name or tmp_path / entry}: {reason}"


def test_unchanged_time_and_size_are_trusted_without_reading(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    seen = settled(path, "one\n")
    path.write_text("two\n")  # same size; another program puts the old time back
    os.utime(path, ns=(LONG_AGO, LONG_AGO))
    assert seen.unchanged_on_disk(path)  # trusted, as git trusts its index


def test_a_changed_time_or_size_makes_content_decide(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    seen = settled(path, "one\n")
    os.utime(path, ns=(LONG_AGO + 1, LONG_AGO + 1))
    assert seen.unchanged_on_disk(path)  # touched only: the content is the same
    path.write_text("two\n")
    assert not seen.unchanged_on_disk(path)
    path.write_text("one\n")
    assert seen.unchanged_on_disk(path)  # written back as it was
    path.write_text("one, longer\n")
    os.utime(path, ns=(LONG_AGO, LONG_AGO))
    assert not seen.unchanged_on_disk(path)  # same time, other size


def test_a_time_inside_the_racy_window_is_not_trusted(tmp_path: Path) -> None:
    """A file modified just before tai read it may be modified again within the same
    timestamp granularity: its time proves nothing, so its content is compared."""
    path = tmp_path / "a.txt"
    path.write_text("one\n")
    seen = Seen.observe(path)
    assert seen.mtime_ns + RACY_NS >= seen.read_ns  # written just now
    path.write_text("two\n")
    os.utime(path, ns=(seen.mtime_ns, seen.mtime_ns))
    assert not seen.unchanged_on_disk(path)


def test_the_racy_window_ends_exactly_at_its_length(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    seen = settled(path, "one\n")
    path.write_text("two\n")
    at_edge = Seen("one\n", LONG_AGO, seen.size, seen.digest, LONG_AGO + RACY_NS)
    past_edge = Seen("one\n", LONG_AGO, seen.size, seen.digest, LONG_AGO + RACY_NS + 1)
    os.utime(path, ns=(LONG_AGO, LONG_AGO))
    assert not at_edge.unchanged_on_disk(path)  # still racy: content decides
    assert past_edge.unchanged_on_disk(path)


def test_a_file_that_became_unreadable_counts_as_changed(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    seen = settled(path, "one\n")
    path.unlink()
    path.mkdir()
    assert not seen.unchanged_on_disk(path)
    path.rmdir()
    assert not seen.unchanged_on_disk(path)
