"""Same inputs, same bytes: every value that must not change between runs is built in
separate processes, each with its own hash seed and, where the file system is read, its own
tree written in another order (``tests.determinism``)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.determinism import built_in_processes, listing, write_in_order
from tests.go.conftest import GO_MOD, commit


def assert_all_equal(outputs: list[str]) -> str:
    assert outputs[0], "the builder printed nothing"
    for number, other in enumerate(outputs[1:], 2):
        assert other == outputs[0], f"process {number} built other bytes than process 1"
    return outputs[0]


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    """A directory on a file system that lists entries in creation order (tmpfs lists the
    newest first); ext4, where pytest's own tmp_path lives here, lists by a hash of the
    name, so two trees written in different orders would list alike."""
    directory = Path(tempfile.mkdtemp(prefix="tai-determinism-", dir="/dev/shm"))
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


class Tree:
    """One tree at one path, rewritten before each process in another order (even, odd):
    the path is an input like the files, the listing order must not be. The test means
    nothing if the two orders list alike, so that is checked."""

    def __init__(self, root: Path, files: dict[str, str], *, git: bool = False) -> None:
        self.root, self.files, self.git = root / "m", files, git
        self.listings: list[list[str]] = []

    def __call__(self, number: int) -> None:
        write_in_order(self.root, self.files, reverse=bool(number % 2))
        if self.git:
            commit(self.root, ".")
        self.listings.append(listing(self.root))

    def check(self) -> None:
        assert self.listings[0] != self.listings[1], "both orders list alike"


def test_the_prompt_whatever_the_hash_seed_and_discovery_order() -> None:
    value = assert_all_equal(built_in_processes("prompt"))
    system = value.partition("\n\0\n")[0]
    listed = system[system.index("# Read-only files") :]
    assert listed.endswith(
        "- vendor/lib0.go\n- vendor/lib1.go\n- vendor/lib2.go\n\nBe terse.\n\nBe kind."
    )


def test_the_block_prompts_of_every_command() -> None:
    assert "# change blocks" in assert_all_equal(built_in_processes("block-prompts"))


def go_module() -> dict[str, str]:
    files = {"go.mod": GO_MOD, "README.md": "r\n", "docs/notes.md": "n\n"}
    for i in range(6):
        imports = f'import "example.com/m/lib{i - 1}"\n\nvar _ = lib{i - 1}.V\n' if i else ""
        files[f"lib{i}/lib.go"] = (
            f"// Package lib{i} is a library.\npackage lib{i}\n\n{imports}\n"
            f"// V is v.\nvar V = {i}\n"
        )
        files[f"lib{i}/extra.go"] = f"package lib{i}\n\n// W is w.\nconst W = {i}\n"
    files["app/app.go"] = (
        'package app\n\nimport (\n\t"example.com/m/lib5"\n\t"example.com/m/lib2"\n)\n\n'
        "// Run runs.\nfunc Run() int { return lib5.V + lib2.V }\n"
    )
    files["app/util.go"] = "package app\n\n// Util helps.\nfunc Util() {}\n"
    files["app/app_test.go"] = 'package app\n\nimport "testing"\n\nfunc TestRun(t *testing.T) {}\n'
    return files


@pytest.mark.slow
def test_the_go_context_and_prompt(tmp_path: Path) -> None:
    tree = Tree(tmp_path, go_module(), git=True)
    value = assert_all_equal(
        built_in_processes("go-context", str(tree.root), "./app", prepare=tree)
    )
    tree.check()
    assert "begin of focus package example.com/m/app" in value


@pytest.mark.slow
def test_the_go_context_cut_to_fit_a_window(tmp_path: Path) -> None:
    tree = Tree(tmp_path, go_module(), git=True)
    limited = built_in_processes("go-context", str(tree.root), "./app", "1500", prepare=tree)
    value = assert_all_equal(limited)
    tree.check()
    assert "begin of focus package example.com/m/app" in value


def test_the_any_text_context(tmp_path: Path) -> None:
    files = {f"d{i % 3}/f{i}.txt": f"file {i}\n" for i in range(12)}
    files |= {".env": "TOKEN=x\n", "notes.md": "n\n", "d1/.gitignore": "f4.txt\n"}
    tree = Tree(tmp_path, files)
    value = assert_all_equal(built_in_processes("any-context", str(tree.root), prepare=tree))
    tree.check()
    assert "d2/f5.txt" in value and "d1/f4.txt" not in value
