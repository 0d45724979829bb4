"""`tai sessions` as a user runs it: real `tai` subprocesses, the replay provider as the
model, the sessions database in a temporary data directory."""

from __future__ import annotations

import json
import shlex
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_tai, tai_executable

ANSWER = "@@@ reply\n@@@ usage input=300 output=40\nIt is a test.\n"


def ask(tmp_path: Path, env: dict[str, str], question: str = "what is it") -> None:
    (tmp_path / "run.txt").write_text(ANSWER, encoding="utf-8")
    result = run_tai("next", "-model", "replay:run.txt", "chat", question, cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr


def ids(tmp_path: Path, env: dict[str, str], *args: str) -> list[str]:
    result = run_tai("sessions", *args, cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    return [line.split()[0] for line in result.stdout.splitlines()[1:]]


def test_nothing_kept_yet_creates_nothing(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    result = run_tai("sessions", cwd=tmp_path, env=isolated_env)
    assert (result.returncode, result.stdout) == (0, "no sessions kept yet\n")
    shown = run_tai("sessions", "show", "abc", cwd=tmp_path, env=isolated_env)
    assert (shown.returncode, shown.stderr) == (1, "tai: error: no sessions kept yet\n")
    assert list(Path(isolated_env["TAI_DATA_DIR"]).iterdir()) == []


@pytest.mark.slow
def test_list_show_export_delete(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    env = isolated_env
    ask(tmp_path, env)
    listing = run_tai("sessions", cwd=tmp_path, env=env).stdout.splitlines()
    assert listing[0].split() == [
        "ID", "UPDATED", "ROUNDS", "MESSAGES", "STATUS", "COMMAND", "MODEL", "TASK", "DIRECTORY"
    ]  # fmt: skip
    (session_id,) = ids(tmp_path, env)
    assert listing[1].split()[3:11] == [
        "1",
        "2",
        "closed",
        "next",
        "replay:run.txt",
        "what",
        "is",
        "it",
    ]  # what it was asked
    shown = run_tai("sessions", "show", session_id[:5], cwd=tmp_path, env=env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(f"session {session_id}: tai next with replay:run.txt in ")
    assert "tokens: 300 in, 40 out" in shown.stdout
    assert shown.stdout.endswith("--- assistant ---\nIt is a test.\n")
    out = tmp_path / "export.jsonl"
    exported = run_tai("sessions", "export", session_id, "-o", str(out), cwd=tmp_path, env=env)
    assert exported.stderr == f"wrote session {session_id} to {out}\n"
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    types = [line["type"] for line in lines]
    assert types[:3] == ["session", "message", "message"] and set(types[3:]) == {"node"}
    generator, user = lines[3:5]
    assert generator["attrs"]["event"] == "generator"  # the model the session talks to
    assert user == {"type": "node", "name": "user-input-1", "parent": "session",
                    "kind": "user-input", "body": "what is it", "attrs": {}}  # fmt: skip
    printed = run_tai("sessions", "export", session_id, cwd=tmp_path, env=env).stdout
    assert printed == out.read_text()
    nowhere = tmp_path / "missing" / "export.jsonl"  # named as given, not the temporary file
    refused = run_tai("sessions", "export", session_id, "-o", str(nowhere), cwd=tmp_path, env=env)
    assert (refused.returncode, refused.stderr) == (
        1, f"tai: error: cannot write {nowhere}: No such file or directory\n")  # fmt: skip
    deleted = run_tai("sessions", "delete", session_id, cwd=tmp_path, env=env)
    assert deleted.stderr == f"deleted session {session_id}\n"
    assert ids(tmp_path, env) == []


@pytest.mark.slow
def test_prefixes_and_directories(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    env = isolated_env
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ask(tmp_path, env)
    ask(elsewhere, env)
    newest, oldest = ids(tmp_path, env)
    assert ids(tmp_path, env, "-here") == [oldest]
    assert ids(elsewhere, env, "-here") == [newest]
    assert ids(tmp_path, env, "-limit", "1") == [newest]
    with sqlite3.connect(Path(env["TAI_DATA_DIR"]) / "tai-sessions.db") as db:
        db.execute("UPDATE sessions SET id = 'ab' || id")  # two ids sharing a prefix
    shown = run_tai("sessions", "show", "ab", cwd=tmp_path, env=env)
    assert shown.returncode == 1
    assert shown.stderr.startswith("tai: error: 'ab' names 2 sessions: ab")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        ("UPDATE nodes SET parent = 'nowhere'", "cannot be read back"),
        ("DROP TABLE messages", "cannot read the sessions database"),
    ],
)
def test_a_damaged_database_is_one_line(
    damage: str, reason: str, tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    ask(tmp_path, isolated_env)
    (session_id,) = ids(tmp_path, isolated_env)
    with sqlite3.connect(Path(isolated_env["TAI_DATA_DIR"]) / "tai-sessions.db") as db:
        db.execute(damage)
    shown = run_tai("sessions", "show", session_id, cwd=tmp_path, env=isolated_env)
    assert shown.returncode == 1
    assert shown.stderr.startswith("tai: error: ") and reason in shown.stderr
    assert "Traceback" not in shown.stderr


def test_keep_sessions_false_keeps_none(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    (tmp_path / "tai.toml").write_text("keep_sessions = false\n")
    ask(tmp_path, isolated_env)
    assert not (Path(isolated_env["TAI_DATA_DIR"]) / "tai-sessions.db").exists()


@pytest.mark.slow
def test_what_a_model_s_command_wrote_into_the_database_cannot_drive_the_terminal(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """The data directory is writable inside the sandbox: a header field holding an escape
    sequence is shown escaped, in the list and in show."""
    ask(tmp_path, isolated_env)
    (session_id,) = ids(tmp_path, isolated_env)
    with sqlite3.connect(Path(isolated_env["TAI_DATA_DIR"]) / "tai-sessions.db") as db:
        db.execute("UPDATE sessions SET model = 'm\x1b]0;owned\x07', last_error = 'e\x1b[2J'")
    listing = run_tai("sessions", cwd=tmp_path, env=isolated_env).stdout
    shown = run_tai("sessions", "show", session_id, cwd=tmp_path, env=isolated_env).stdout
    for text in (listing, shown):
        assert "\x1b" not in text and "m\\x1b]0;owned\\x07" in text
    assert "error: e\\x1b[2J" in shown


@pytest.mark.slow
def test_a_chat_whose_session_cannot_be_saved_says_so_once(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """The last turn's save runs after its printer has ended: its failure was never shown
    by the plain chat (the terminal UI showed it); now once, however many saves failed."""
    ask(tmp_path, isolated_env)
    with sqlite3.connect(Path(isolated_env["TAI_DATA_DIR"]) / "tai-sessions.db") as db:
        db.execute("DROP TABLE messages")
    result = run_tai("ai", "-no-memory", "-model", "replay:run.txt", cwd=tmp_path,
                     env=isolated_env, stdin="hi\n")  # fmt: skip
    warnings = [line for line in result.stderr.splitlines() if "saved" in line]
    assert warnings == ["tai: warning: the session could not be saved: no such table: messages"]


@pytest.mark.slow
def test_a_read_only_data_directory_is_read(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    """On a read-only mount (a backup, another machine's files) the sessions are listed
    and shown as they are; a deletion says why it cannot be made."""
    ask(tmp_path, isolated_env)
    (session_id,) = ids(tmp_path, isolated_env)
    data = isolated_env["TAI_DATA_DIR"]
    for extra in Path(data).glob("tai-sessions.db-*"):  # no -wal or -shm to read from
        extra.unlink()
    tai = shlex.quote(tai_executable())
    script = (
        f"mount --bind -o ro {shlex.quote(data)} {shlex.quote(data)} && "
        f"{tai} sessions && {tai} sessions show {session_id}; "
        f"{tai} sessions delete {session_id}; echo deleted: $?"
    )
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
        cwd=tmp_path, env=isolated_env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.stdout.splitlines()[1].startswith(session_id), done.stderr
    assert "what is it" in done.stdout  # the session shown
    assert done.stdout.endswith("deleted: 1\n")
    assert "readonly database" in done.stderr and ids(tmp_path, isolated_env) == [session_id]
