"""The launch directory's files (``tai_core.config._launch_files``): read back only when
the user alone could have written them, written whole."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tai_core.config import launch_file, read_launch_file, write_launch_file


def test_a_file_written_is_read_back_and_the_users_alone(tmp_path: Path) -> None:
    path = tmp_path / "launch" / "answer-1.json"
    write_launch_file(str(path), b"first")
    write_launch_file(str(path), b"second")
    assert read_launch_file(str(path)) == b"second"
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o077 == 0
    assert os.listdir(path.parent) == ["answer-1.json"]  # no temporary file left


@pytest.mark.parametrize("mode", [0o620, 0o602, 0o660, 0o666])
def test_a_file_others_may_write_is_not_read(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "kept"
    write_launch_file(str(path), b"planted?")
    path.chmod(mode)
    assert read_launch_file(str(path)) is None
    for harmless in (0o644, 0o645, 0o711):  # reading or running by others: only writing
        path.chmod(harmless)
        assert read_launch_file(str(path)) == b"planted?"


def test_a_link_is_not_followed(tmp_path: Path) -> None:
    """A link in the launch directory could point at a file of the user's that others (a
    model's command) may write, such as one in a working tree."""
    elsewhere = tmp_path / "work" / "answer.json"
    write_launch_file(str(elsewhere), b"the user's, but not kept by tai")
    (tmp_path / "kept").symlink_to(elsewhere)
    assert read_launch_file(str(tmp_path / "kept")) is None
    write_launch_file(str(tmp_path / "kept"), b"tai's own")
    assert read_launch_file(str(tmp_path / "kept")) == b"tai's own"
    assert elsewhere.read_bytes() == b"the user's, but not kept by tai"  # replaced, not followed


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_a_file_of_another_user_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "kept"
    write_launch_file(str(path), b"planted?")
    os.chown(path, 65534, 65534)
    assert read_launch_file(str(path)) is None


def test_missing_and_unreadable_files_read_as_none(tmp_path: Path) -> None:
    assert read_launch_file(str(tmp_path / "missing")) is None
    assert read_launch_file(str(tmp_path)) is None  # a directory
    assert read_launch_file("bad\0path") is None


@pytest.mark.unprivileged
@pytest.mark.skipif(os.getuid() == 0, reason="root writes into a read-only directory")
def test_a_write_that_cannot_be_made_raises_and_leaves_nothing(tmp_path: Path) -> None:
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(OSError):
            write_launch_file(str(tmp_path / "kept"), b"x")
        assert os.listdir(tmp_path) == []
    finally:
        tmp_path.chmod(0o700)


def test_a_write_that_fails_at_the_rename_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "kept"
    (target / "in the way").mkdir(parents=True)  # a directory where the file would go
    with pytest.raises(OSError):
        write_launch_file(str(target), b"x")
    assert sorted(os.listdir(tmp_path)) == ["kept"]


def test_an_interpreter_path_that_is_not_utf8_has_a_file_too(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr("sys.executable", "/opt/py\udcff/bin/python")  # a byte not UTF-8
    named = launch_file("help", "json")
    monkeypatch.setattr("sys.executable", "/opt/py\udcfe/bin/python")
    assert named != launch_file("help", "json")


def test_each_interpreter_has_its_own_file(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = launch_file("help", "json")
    monkeypatch.setattr("sys.executable", "/elsewhere/bin/python")
    second = launch_file("help", "json")
    assert first != second
    assert Path(first).parent == Path(second).parent == tmp_path / "tai" / "launch"
