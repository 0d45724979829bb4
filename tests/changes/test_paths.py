"""Which paths a change may touch: escapes, symbolic links, protected paths, the policy hook."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tai_changes import ChangeError, apply_change
from tai_core import hookimpl
from tai_core.plugins import PluginHost
from tai_core.store import FileStore, PathError, host_policy

from .conftest import block, write_files


@pytest.mark.parametrize("path", ["../x.txt", "a/../../x.txt", "..", "/etc/passwd", ""])
def test_paths_leaving_the_working_directory_are_refused(tmp_path: Path, path: str) -> None:
    with pytest.raises(PathError):
        FileStore.open(tmp_path).write(path, "x")


def test_relative_absolute_and_dotted_names_are_one_key(tmp_path: Path) -> None:
    store = FileStore.open(tmp_path)
    assert store.resolve("a/./b/../c.txt") == "a/c.txt"
    assert store.resolve(str(tmp_path / "a" / "c.txt")) == "a/c.txt"
    assert store.resolve("..notescape.go") == "..notescape.go"


def test_symbolic_links_resolve_inside_or_are_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    inside = tmp_path / "work"
    outside.mkdir()
    inside.mkdir()
    write_files(inside, {"real.txt": "r\n"})
    (inside / "link.txt").symlink_to(inside / "real.txt")
    (inside / "escape").symlink_to(outside)
    store = FileStore.open(inside)
    assert store.resolve("link.txt") == "real.txt"
    store.write("link.txt", "through the link\n").flush()
    assert (inside / "real.txt").read_text() == "through the link\n"
    assert (inside / "link.txt").is_symlink()
    with pytest.raises(PathError, match="outside the working directory"):
        store.write("escape/x.txt", "x")


@pytest.mark.parametrize(
    "path",
    [
        ".git/hooks/pre-commit",
        ".git/config",
        "vendor/lib/.git/hooks/post-checkout",
        "vendor/lib/.git/config",
        ".vscode/tasks.json",
        "sub/.vscode/launch.json",
        "tai.toml",
        "sub/.tai.toml",
        ".tai-journal/x.commit",
        "sub/.tai-journal/x.commit",
        ".git/commondir",
        ".git/info/exclude",
        ".git/objects/info/alternates",
        ".git/worktrees/w/config.worktree",
        "sub/.git",
    ],
)
def test_protected_paths_are_refused_with_a_reason(tmp_path: Path, path: str) -> None:
    with pytest.raises(PathError, match="protected"):
        FileStore.open(tmp_path).write(path, "x")


def test_other_git_files_and_lookalikes_are_writable(tmp_path: Path) -> None:
    store = FileStore.open(tmp_path)
    for path in (".gitignore", ".github/workflows/ci.yml", "docs/tai.toml.md", "vscode/x"):
        store = store.write(path, "x\n")
    assert len(store.pending()) == 4


def test_configured_protected_paths(tmp_path: Path) -> None:
    store = FileStore.open(
        tmp_path, protected=["secrets/", "*.pem", "/Makefile", "deploy/**/*.yaml"]
    )
    for path in ("secrets/a.txt", "keys/x.pem", "Makefile", "deploy/prod/eu/app.yaml"):
        with pytest.raises(PathError, match="protected_paths"):
            store.write(path, "x")
    for path in ("sub/Makefile", "deploy/readme.md", "secretsx/a"):
        store = store.write(path, "x")


@pytest.mark.parametrize(
    ("pattern", "refused", "allowed"),
    [
        ("LaTeX/", "doc/LaTeX/a.tex", "doc/LaTe/a.tex"),  # only the slash is stripped
        ("/Xmas", "Xmas", "mas"),  # only the leading slash
        ("docs\\private", "docs/private/a.md", "docs/privatex"),  # a Windows separator
        ("  out  ", "out/x", "outx"),  # spaces around a pattern
    ],
)
def test_configured_patterns_are_read_as_written(
    tmp_path: Path, pattern: str, refused: str, allowed: str
) -> None:
    store = FileStore.open(tmp_path, protected=[pattern])
    with pytest.raises(PathError) as caught:
        store.write(refused, "x")
    assert str(caught.value) == (
        f"{refused}: protected (pattern {pattern!r}: "
        "listed in protected_paths of the configuration)"
    )
    assert store.write(allowed, "x").pending()


def test_a_change_block_on_a_protected_path_fails_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ChangeError) as caught:
        apply_change(FileStore.open(tmp_path), block("WRITE", ".git/hooks/pre-commit", "rm -rf"))
    assert str(caught.value).startswith("WRITE in .git/hooks/pre-commit: .git/hooks/pre-commit:")
    assert "git's directory (hooks, configuration, …) runs code" in str(caught.value)


class ReadOnlyDocs:
    __name__ = "read_only_docs"

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    @hookimpl
    def tai_path_policy(self, path: str, operation: str) -> tuple[bool, str] | None:
        self.asked.append((path, operation))
        if path.startswith("docs/"):
            return False, "docs are read-only in this run"
        return None


def test_the_path_policy_hook_is_asked_before_every_write(host: PluginHost, tmp_path: Path) -> None:
    write_files(tmp_path, {"a.txt": "a\n", "old.txt": "o\n"})
    policy = ReadOnlyDocs()
    host.register(policy, "read-only-docs")
    try:
        store = FileStore.open(tmp_path, policy=host_policy(host))
        store = store.write("a.txt", "A\n").write("b.txt", "b\n").delete("a.txt")
        store = store.rename("old.txt", "new.txt")
        with pytest.raises(PathError, match=r"docs/x\.md: create refused by the path policy: docs"):
            store.write("docs/x.md", "x")
    finally:
        host.unregister("read-only-docs")
    assert policy.asked[:6] == [
        ("a.txt", "write"),
        ("b.txt", "create"),
        ("a.txt", "delete"),
        ("old.txt", "rename"),
        ("new.txt", "rename"),
        ("docs/x.md", "create"),
    ]


def test_directories_and_special_files_are_not_files(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    store = FileStore.open(tmp_path)
    with pytest.raises(PathError, match="is a directory"):
        store.write("dir", "x")
    with pytest.raises(PathError, match="not a regular file"):
        store.load("fifo")


def test_a_sibling_directory_sharing_the_name_as_prefix_is_outside(tmp_path: Path) -> None:
    root = tmp_path / "work"
    evil = tmp_path / "work-evil"
    root.mkdir()
    evil.mkdir()
    store = FileStore.open(root)
    for path in ("../work-evil/x.txt", str(evil / "x.txt")):
        with pytest.raises(PathError, match="escapes the working directory"):
            store.write(path, "x")
    (root / "into-evil").symlink_to(evil)
    with pytest.raises(PathError, match="outside the working directory"):
        store.write("into-evil/x.txt", "x")
    assert list(evil.iterdir()) == []


def test_the_root_of_the_file_system_as_working_directory() -> None:
    from tai_core.store import PathGuard

    guard = PathGuard.create("/")
    assert guard.resolve("srv/x.txt") == "srv/x.txt"
    assert guard.resolve("/srv/../srv/x.txt") == "srv/x.txt"


LONG = "../" + "x" * 100
EXACTLY = "../" + "y" * 77  # 80 characters: shown whole


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("", "empty file path"),
        ("  ", "empty file path"),
        ("../x.txt", "../x.txt: escapes the working directory /"),
        (".", ".: names the working directory itself, not a file"),
        ("a\0b", "a\\x00b: a file name cannot contain a NUL byte"),
        ("a\ud800b", "a\\ud800b: not a valid file name (unencodable characters)"),
        ("d/" + "n" * 256, "file name too long (256 bytes; the limit is 255)"),
        ("../\x1b[31mred", "../\\x1b[31mred: escapes the working directory"),
        (LONG, f"{LONG[:60]}…{LONG[-19:]}: escapes the working directory"),
        (EXACTLY, f"{EXACTLY}: escapes the working directory"),
        ("../back\\slash", "../back\\slash: escapes"),  # printable: shown as it is
    ],
)
def test_refusals_name_the_path_and_the_reason(tmp_path: Path, path: str, message: str) -> None:
    with pytest.raises(PathError) as caught:
        FileStore.open(tmp_path).resolve(path)
    assert message in str(caught.value)


def test_the_longest_names_and_paths_are_taken(tmp_path: Path) -> None:
    from tai_core.store._paths import PATH_MAX

    store = FileStore.open(tmp_path)
    assert store.resolve("n" * 255) == "n" * 255
    room = PATH_MAX - len(os.fsencode(str(tmp_path))) - 1
    # directories of 200 bytes and a file name of 1 to 201 bytes, whatever tmp_path's length
    deep = "/".join(["d" * 200] * ((room - 1) // 201)) + "/"
    deep += "f" * (room - len(deep))
    assert store.resolve(deep) == deep
    with pytest.raises(PathError, match=f"path too long \\({PATH_MAX + 1} bytes with the"):
        store.resolve(deep + "x")
