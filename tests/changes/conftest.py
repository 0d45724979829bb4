"""Helpers for change tests: blocks built from parameters, a working directory with files,
and "apply these blocks as a round would" (apply, then flush: the real goimports runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_changes import apply_change
from tai_core import Block
from tai_core.store import FileStore


def block(op: str, file: str, body: str = "", *, target: str = "", find: str = "") -> Block:
    params = {"op": op, "file-path": file}
    if target:
        params["target"] = target
    if find:
        params["find"] = find
    return Block(
        kind="change", delimiter="甲乙", params=params, body=body.strip(), line=1, start=0, end=0
    )


def write_files(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def run_round(root: Path, *blocks: Block, store: FileStore | None = None) -> FileStore:
    """Apply ``blocks`` in order and flush (which formats Go files), as a round does."""
    store = store or FileStore.open(root)
    for item in blocks:
        store = apply_change(store, item)
    return store.flush()


@pytest.fixture
def module(tmp_path: Path) -> Path:
    """A working directory that is a Go module."""
    (tmp_path / "go.mod").write_text("module example.com/m\n\ngo 1.22\n")
    return tmp_path
