"""Property: on generated trees with generated .gitignore files, the provider shows exactly
the files git itself does not ignore (``git ls-files --others --exclude-standard``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tai_context_any import provider
from tai_core.context import TIER_CONTEXT, ContextRequest

from .conftest import write_tree

DIRECTORIES = ("", "d1/", "d1/d2/", "e/", ".hidden/")
NAMES = ("a.txt", "b.md", "c.log", ".h")
PATTERNS = (
    "*.txt", "!a.txt", "d1/", "/b.md", "d2", "*.log", "!c.log", "e/*", "!e/a.txt",
    "**/d2/*.md", ".h", "!.h", "a*", "d2/", ".hidden", "!b.md",
)  # fmt: skip

trees = st.tuples(
    st.sets(st.tuples(st.sampled_from(DIRECTORIES), st.sampled_from(NAMES)), min_size=1),
    st.dictionaries(
        st.sampled_from(DIRECTORIES),
        st.lists(st.sampled_from(PATTERNS), max_size=4),
        max_size=3,
    ),
    st.lists(st.sampled_from(PATTERNS), max_size=2),
)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git_shown(root: Path) -> list[str]:
    env = {**os.environ, "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1"}
    listed = subprocess.run(
        ["git", "-c", "core.excludesFile=/dev/null", "ls-files", "--others", "--exclude-standard"],
        cwd=root, env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return sorted(listed.splitlines())


@settings(max_examples=60)
@given(trees)
@pytest.mark.slow
def test_the_walk_agrees_with_git(
    tree: tuple[set[tuple[str, str]], dict[str, list[str]], list[str]],
) -> None:
    files, ignores, excludes = tree
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        write_tree(root, {folder + name: f"{folder}{name}\n" for folder, name in files})
        write_tree(
            root, {f"{folder}.gitignore": "\n".join(lines) for folder, lines in ignores.items()}
        )
        (root / ".git" / "info" / "exclude").write_text("\n".join(excludes), encoding="utf-8")
        parts = provider.collect(ContextRequest(cwd=root, command="any"))
        assert [part.key for part in parts if part.tier == TIER_CONTEXT] == git_shown(root)
