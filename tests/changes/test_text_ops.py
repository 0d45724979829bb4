"""Change operations on text files: WRITE, REPLACE, INSERT_*, BEGIN/END, DELETE *, RENAME."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_changes import ChangeError, apply_change
from tai_core.store import FileStore

from .conftest import block, run_round, write_files


def test_write_replaces_and_creates_nested_files(tmp_path: Path) -> None:
    write_files(tmp_path, {"readme.md": "old content"})
    run_round(
        tmp_path,
        block("WRITE", "readme.md", "# New Title\n\nNew content\n"),
        block("WRITE", "sub/dir/notes.md", "# Notes"),
    )
    assert (tmp_path / "readme.md").read_text() == "# New Title\n\nNew content\n"
    assert (tmp_path / "sub/dir/notes.md").read_text() == "# Notes\n"


def test_replace_swaps_the_unique_find_text(tmp_path: Path) -> None:
    write_files(tmp_path, {"readme.md": "# Title\n\nold description\n\nMore content\n"})
    run_round(tmp_path, block("REPLACE", "readme.md", "new description", find="old description"))
    assert (tmp_path / "readme.md").read_text() == "# Title\n\nnew description\n\nMore content\n"


def test_replace_with_an_empty_body_deletes_the_text(tmp_path: Path) -> None:
    write_files(tmp_path, {"readme.md": "# Title\n\nDELETE ME\n\nMore content\n"})
    run_round(tmp_path, block("REPLACE", "readme.md", "", find="DELETE ME\n\n"))
    assert (tmp_path / "readme.md").read_text() == "# Title\n\nMore content\n"


def test_find_not_found_names_the_closest_line(tmp_path: Path) -> None:
    write_files(tmp_path, {"readme.md": "# Title\n\nContent here\n"})
    with pytest.raises(ChangeError) as caught:
        apply_change(
            FileStore.open(tmp_path), block("REPLACE", "readme.md", "x", find="Content hre")
        )
    message = str(caught.value)
    assert message.startswith("REPLACE in readme.md: find text not found")
    assert "closest line 3: 'Content here'" in message
    assert "\n" not in message


def test_find_appearing_twice_is_refused(tmp_path: Path) -> None:
    write_files(tmp_path, {"readme.md": "duplicate\nduplicate\n"})
    with pytest.raises(ChangeError, match=r"appears 2 times.*use WRITE"):
        apply_change(FileStore.open(tmp_path), block("REPLACE", "readme.md", "u", find="duplicate"))
    assert (tmp_path / "readme.md").read_text() == "duplicate\nduplicate\n"


def test_insert_keeps_lines_apart(tmp_path: Path) -> None:
    write_files(
        tmp_path, {"readme.md": "# Title\n\n## Section\n", "Cargo.toml": "[dependencies]\n"}
    )
    run_round(
        tmp_path,
        block("INSERT_BEFORE", "readme.md", "## New Section", find="## Section"),
        block("INSERT_AFTER", "Cargo.toml", 'serde = { version = "1.0" }', find="[dependencies]"),
    )
    assert (tmp_path / "readme.md").read_text() == "# Title\n\n## New Section\n## Section\n"
    assert (tmp_path / "Cargo.toml").read_text() == '[dependencies]\nserde = { version = "1.0" }\n'


def test_begin_and_end_on_text_files(tmp_path: Path) -> None:
    write_files(tmp_path, {"log.txt": "middle"})
    run_round(
        tmp_path,
        block("ADD_BEFORE", "notes.md", "# Notes", target="BEGIN"),
        block("ADD_BEFORE", "log.txt", "first", target="BEGIN"),
        block("ADD_AFTER", "log.txt", "last", target="END"),
    )
    assert (tmp_path / "notes.md").read_text() == "# Notes\n"
    assert (tmp_path / "log.txt").read_text() == "first\nmiddle\nlast\n"


def test_delete_star_removes_a_file_and_tolerates_a_missing_one(tmp_path: Path) -> None:
    write_files(tmp_path, {"readme.md": "# Title\n", "x.go": "package x\n"})
    run_round(
        tmp_path,
        block("DELETE", "readme.md", target="*"),
        block("DELETE", "x.go", target="*"),
        block("DELETE", "nonexistent.go", target="*"),
    )
    assert not (tmp_path / "readme.md").exists()
    assert not (tmp_path / "x.go").exists()


def test_rename_moves_content_and_refuses_to_overwrite(tmp_path: Path) -> None:
    write_files(tmp_path, {"test.go": "package x\n", "other.txt": "o\n"})
    store = run_round(tmp_path, block("RENAME", "test.go", target="sub/newname.go"))
    assert not (tmp_path / "test.go").exists()
    assert (tmp_path / "sub/newname.go").read_text() == "package x\n"
    with pytest.raises(ChangeError, match=r"other\.txt already exists"):
        apply_change(store, block("RENAME", "sub/newname.go", target="other.txt"))
    with pytest.raises(ChangeError, match="does not exist"):
        apply_change(store, block("RENAME", "missing.txt", target="new.txt"))


@pytest.mark.parametrize("op", ["REPLACE", "INSERT_BEFORE", "INSERT_AFTER"])
def test_text_ops_are_refused_on_go_files(tmp_path: Path, op: str) -> None:
    write_files(tmp_path, {"test.go": 'package x\n\nfunc main() { println("hi") }\n'})
    with pytest.raises(ChangeError, match="do not support text-level operations"):
        apply_change(FileStore.open(tmp_path), block(op, "test.go", "x", find="main"))


@pytest.mark.parametrize("op", ["MODIFY", "DELETE", "ADD_AFTER"])
def test_declaration_ops_are_refused_on_text_files(tmp_path: Path, op: str) -> None:
    write_files(tmp_path, {"readme.md": "# Title\n"})
    with pytest.raises(ChangeError, match="works in Go and Python files only"):
        apply_change(FileStore.open(tmp_path), block(op, "readme.md", "x", target="Title"))


def test_text_op_on_a_missing_file_fails(tmp_path: Path) -> None:
    with pytest.raises(ChangeError, match="does not exist"):
        apply_change(FileStore.open(tmp_path), block("REPLACE", "nope.md", "x", find="y"))


def test_unknown_or_missing_op_fails_without_touching_anything(tmp_path: Path) -> None:
    write_files(tmp_path, {"test.go": "package x\n\nfunc Keep() {}\n"})
    store = FileStore.open(tmp_path)
    with pytest.raises(ChangeError, match="unknown op 'MODIFYY'"):
        apply_change(store, block("MODIFYY", "test.go", "func Keep() {}", target="Keep"))
    with pytest.raises(ChangeError, match="no op"):
        apply_change(store, block("", "test.go"))
    assert store.pending() == ()
