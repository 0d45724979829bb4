"""What a flush writes is exactly what the store holds, the empty content included (an
empty file stays empty; it is never taken for "nothing to write")."""

from __future__ import annotations

from pathlib import Path

from tai_core.store import FileStore


def test_an_empty_file_is_written_empty(tmp_path: Path) -> None:
    (tmp_path / "full.txt").write_text("something\n")
    store = FileStore.open(tmp_path).write("new-empty.txt", "").write("full.txt", "")
    store.flush()
    assert (tmp_path / "new-empty.txt").read_bytes() == b""
    assert (tmp_path / "full.txt").read_bytes() == b""
