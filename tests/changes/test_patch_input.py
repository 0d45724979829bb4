"""``tai patch`` on input a user really has: CRLF bodies, bytes that are not UTF-8, names
no file system takes, a disk that refuses the write (a file-size limit)."""

from __future__ import annotations

import resource
import signal
import subprocess
from pathlib import Path

import pytest

from ..conftest import run_tai, tai_executable


def _block(path: str, body: str, op: str = "WRITE") -> str:
    return f'<<甲乙 change(op="{op}", file-path="{path}")\n{body}\n甲乙\n'


def test_crlf_bodies_keep_their_bytes(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    (tmp_path / "notes.txt").write_bytes(b"one\r\ntwo\r\n")
    reply = _block("dos.txt", "a\r\nb\rc\r") + '<<丙丁 change(op="REPLACE", find="two", '
    reply += 'file-path="notes.txt")\nzwei\r\ndrei\n丙丁\n'
    (tmp_path / ".AI").write_bytes(reply.encode())
    result = run_tai("patch", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "dos.txt").read_bytes() == b"a\r\nb\rc\r\n"
    assert (tmp_path / "notes.txt").read_bytes() == b"one\r\nzwei\r\ndrei\r\n"


def test_non_utf8_ai_file_is_one_line(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    (tmp_path / ".AI").write_bytes(_block("a.txt", "caf\xe9").encode("latin-1", "replace"))
    result = run_tai("patch", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 1
    assert result.stderr == "tai: error: .AI: line 2: not UTF-8 text (byte 0xe9)\n"
    assert not (tmp_path / "a.txt").exists()


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("a" * 300 + ".txt", "file name too long (304 bytes; the limit is 255)"),
        ("/".join(["abcdefghi"] * 500), "path too long ("),
        ("a\0b.txt", "a\\x00b.txt: a file name cannot contain a NUL byte"),
    ],
)
def test_unusable_paths_are_one_line(
    tmp_path: Path, isolated_env: dict[str, str], path: str, message: str
) -> None:
    (tmp_path / ".AI").write_text(_block(path, "x"))
    result = run_tai("patch", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1 and len(result.stderr) < 400
    assert message in result.stderr


def _limit_file_size() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 16, 1 << 16))


def test_a_file_size_limit_names_the_file_and_the_reason(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    tmp_path = tmp_path / "work"
    tmp_path.mkdir()
    (tmp_path / "keep.txt").write_text("kept\n")
    reply = _block("keep.txt", "changed") + _block("big.txt", "x" * (1 << 17))
    (tmp_path / ".AI").write_text(reply)
    result = subprocess.run(
        [tai_executable(), "patch"],
        cwd=tmp_path,
        env=isolated_env,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limit_file_size,
    )
    assert result.returncode == 1
    *before, last = result.stderr.splitlines()
    assert last == (
        "tai: error: nothing was written: cannot stage big.txt: file too large "
        "(over the file-size limit: ulimit -f, or the file system's)"
    )
    # the limit keeps the checkpoint of the tree from being written too, and that is said
    assert all(line.startswith("tai: warning: no checkpoint of ") for line in before)
    assert (tmp_path / "keep.txt").read_text() == "kept\n"
    assert not (tmp_path / "big.txt").exists()
    assert (tmp_path / ".AI").read_text() == reply  # nothing applied: run again later
    assert sorted(path.name for path in tmp_path.iterdir()) == [".AI", "keep.txt"]
