"""The profiles file of `tai ai` (tai_core.memory): bounded, merged, read defensively,
written whole under a lock by concurrent sessions."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tai_core.memory import (
    MAX_ITEM_CHARS,
    MAX_ITEMS,
    ProfileDamaged,
    bounded,
    memory_items,
    merged,
    profile,
    read_entries,
    record,
)


@given(st.lists(st.text(max_size=MAX_ITEM_CHARS * 2), max_size=MAX_ITEMS * 2))
def test_a_profile_is_bounded(items: list[str]) -> None:
    kept = bounded(items)
    assert len(kept) <= MAX_ITEMS
    assert len(set(kept)) == len(kept)
    assert all(item and len(item) <= MAX_ITEM_CHARS and item == item.strip() for item in kept)
    normal = [" ".join(item.split()) for item in items]
    assert all(any(item.rstrip("…") in text for text in normal) for item in kept)
    first = next((text for text in normal if text), None)
    if first is not None and len(first) <= MAX_ITEM_CHARS:
        assert kept[0] == first  # the order of the items is kept


def test_an_update_puts_the_new_items_first() -> None:
    assert merged(["b", "c"], ["a", "b", "  c  "]) == ("b", "c", "a")
    assert bounded(["x" * (MAX_ITEM_CHARS + 5)]) == ("x" * (MAX_ITEM_CHARS - 1) + "…",)


def test_memory_items_come_from_the_memory_document() -> None:
    body = "<memory><memory-item>likes Go</memory-item><other/><memory-item/></memory>"
    assert memory_items(body) == ["likes Go", ""]
    assert memory_items("<notes><memory-item>x</memory-item></notes>") == []
    assert memory_items("<memory><memory-item>unclosed</memory>") == []


@pytest.mark.parametrize(
    "text",
    ["{not json", "[]", '{"Entries": {}}', '{"Entries": [{"Time": "t", "Model": "m"}]}',
     '{"Entries": [{"Time": "t", "Model": "m", "Items": [1]}]}', "\xff"],
)  # fmt: skip
def test_a_damaged_file_is_refused_with_its_path(text: str, tmp_path: Path) -> None:
    path = tmp_path / "ai-memory.json"
    path.write_text(text, encoding="latin-1")
    with pytest.raises(ProfileDamaged, match=str(path)):
        read_entries(path)


def test_each_model_has_its_own_profile(tmp_path: Path) -> None:
    path = tmp_path / "ai-memory.json"
    assert read_entries(path) == []
    record(path, "a", ["one"])
    record(path, "b", ["two"])
    assert record(path, "a", ["three"]) == ("three", "one")
    entries = read_entries(path)
    assert [(e.model, e.items) for e in entries] == [
        ("a", ("one",)), ("b", ("two",)), ("a", ("three", "one"))
    ]  # fmt: skip
    assert profile(entries, "b") == ("two",) and profile(entries, "c") == ()
    assert not list(tmp_path.glob(".ai-memory.json.*"))  # no temporary file left


def test_a_damaged_file_is_replaced_by_the_next_update(tmp_path: Path) -> None:
    path = tmp_path / "ai-memory.json"
    path.write_text("{not json")
    assert record(path, "a", ["one"]) == ("one",)
    assert json.loads(path.read_text())["Entries"][0]["Items"] == ["one"]


def _record_many(path: str, model: str) -> None:
    for number in range(25):
        record(Path(path), model, [f"{model}{number}"])


def test_concurrent_sessions_lose_no_entry(tmp_path: Path) -> None:
    path = tmp_path / "ai-memory.json"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_record_many, args=(str(path), m)) for m in ("a", "b")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    entries = read_entries(path)
    assert len(entries) == 50
    assert len(profile(entries, "a")) == 25 and len(profile(entries, "b")) == 25
