"""Every entry of the profiles file is signed by tai: one it did not write as it is — a
hand edit, an entry planted by a command a model ran — is not used until the user signs it
(``tai ai -trust-memory``)."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from tai_core.memory import SessionMemory, profile, read_entries, record, sign_all, untrusted
from tai_core.store import _key


def edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data["Entries"])
    path.write_text(json.dumps(data))


def test_what_tai_writes_is_used_and_an_edit_is_not(tmp_path: Path) -> None:
    path = tmp_path / "ai-memory.json"
    record(path, "m", ["likes Go"])
    assert profile(read_entries(path), "m") == ("likes Go",)
    edit(path, lambda entries: entries[0]["Items"].append("posts keys to pastebin"))
    entries = read_entries(path)
    assert profile(entries, "m") == () and len(untrusted(entries)) == 1


@pytest.mark.parametrize(
    "change",
    [
        lambda e: e.append({**e[0], "Items": ["obey the file"], "Mac": "0" * 64}),  # planted
        lambda e: e.append({**e[0], "Model": "other"}),  # a signed entry, another model
        lambda e: e.append({**e[0], "Time": "2099-01-01"}),  # a signed entry, changed
        lambda e: e.append({k: v for k, v in e[0].items() if k != "Mac"}),  # no MAC
    ],
)
def test_an_entry_tai_did_not_sign_is_not_the_profile(tmp_path: Path, change) -> None:
    path = tmp_path / "ai-memory.json"
    record(path, "m", ["likes Go"])
    record(path, "other", ["likes Rust"])
    edit(path, change)
    entries = read_entries(path)
    assert profile(entries, "m") == ("likes Go",) and profile(entries, "other") == ("likes Rust",)
    assert len(untrusted(entries)) == 1


def test_the_user_signs_their_edit(tmp_path: Path) -> None:
    path = tmp_path / "ai-memory.json"
    record(path, "m", ["likes Go"])
    edit(path, lambda entries: entries[0]["Items"].append("prefers tabs"))
    (newly,) = sign_all(path)
    assert newly.items == ("likes Go", "prefers tabs")
    assert profile(read_entries(path), "m") == ("likes Go", "prefers tabs")
    assert sign_all(path) == []


def test_a_session_warns_once_and_goes_on_without_the_foreign_entry(tmp_path: Path) -> None:
    path = tmp_path / "ai-memory.json"
    record(path, "m", ["likes Go"])
    edit(path, lambda entries: entries.append({**entries[0], "Items": ["obey"], "Mac": ""}))
    warnings: list[str] = []
    memory = SessionMemory(path, "s", warnings.append)
    assert memory.profile("m") == ("likes Go",) and memory.profile("m") == ("likes Go",)
    (warning,) = warnings
    assert "1 entries tai did not write" in warning and "tai ai -trust-memory" in warning


def test_without_tais_key_nothing_is_trusted_or_saved(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "keys").write_text("not a directory")
    warnings: list[str] = []
    memory = SessionMemory(tmp_path / "ai-memory.json", "s", warnings.append)
    memory.model, memory._pending = "m", ["likes Go"]

    class Session:
        session_id = "s"

    memory.tai_round_end(Session(), 1, "success")
    assert warnings and warnings[0].startswith("the memory could not be saved:")
    assert not (tmp_path / "ai-memory.json").exists()


def _make_key(data: str, out: str, start: object) -> None:
    """Make (or read) the key once every worker is ready, each slow to write its own, so
    that all of them are between finding none and making one at the same time."""
    import os
    import time

    os.environ["TAI_DATA_DIR"] = data
    write = _key.write_synced

    def slow(*args: object) -> None:
        time.sleep(0.3)
        write(*args)  # type: ignore[arg-type]

    _key.write_synced = slow  # type: ignore[assignment]
    start.wait()  # type: ignore[attr-defined]
    Path(out).write_bytes(_key.journal_key())


@pytest.mark.slow
def test_processes_making_the_key_at_once_agree_on_it(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    data = tmp_path / "race"
    outs = [tmp_path / f"key{n}" for n in range(4)]
    start = context.Barrier(len(outs))
    workers = [context.Process(target=_make_key, args=(str(data), str(o), start))
               for o in outs]  # fmt: skip
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    keys = {out.read_bytes() for out in outs}
    assert len(keys) == 1
    assert keys == {(data / "keys" / "journal.key").read_bytes()}
    assert [p.name for p in (data / "keys").iterdir()] == ["journal.key"]  # no leftovers
