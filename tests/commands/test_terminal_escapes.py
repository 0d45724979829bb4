"""A hostile reply cannot drive the user's terminal through the plain client.

A model's words, a block's output and a file the model wrote reach the terminal in
``tai next -cli`` (and whenever standard input is no terminal, or only standard error is
one: ``tai next … > answer.md``). An escape sequence in them could set the clipboard (OSC
52: the user pastes a command the model chose), retitle the window or clear the screen to
hide what ran. On a terminal each control character is shown escaped; a file or a pipe
gets the reply as it was sent.
"""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

import pytest

from tests.commands.test_next import configure
from tests.conftest import tai_executable
from tests.servers import FakeModelServer, Reply

#: Set the clipboard, retitle the window, clear the screen.
HOSTILE = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;owned\x07\x1b[2J"
REPLY = f"Here.{HOSTILE}\n<<甲乙 summary\n- done{HOSTILE}\n甲乙\n"


def on_a_terminal(command: list[str], cwd: Path, env: dict[str, str]) -> bytes:
    """What ``command`` writes to a terminal that is both its standard output and error
    (standard input: nothing)."""
    leader, follower = pty.openpty()
    with subprocess.Popen(
        command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower
    ) as process:
        os.close(follower)
        seen = b""
        while True:
            try:
                piece = os.read(leader, 65536)
            except OSError:  # the terminal's other side closed: the process has ended
                break
            if not piece:
                break
            seen += piece
        process.wait(timeout=60)
    os.close(leader)
    return seen


def hostile_run(
    tmp_path: Path, server: FakeModelServer, env: dict[str, str], *flags: str
) -> subprocess.CompletedProcess[str]:
    """``tai next -cli FLAGS chat hi`` answered by :data:`REPLY`, its output captured."""
    configure(tmp_path, server)
    server.script(Reply(text=REPLY, chunks=3))
    done = subprocess.run(
        [tai_executable(), "next", "-cli", *flags, "chat", "hi"], cwd=tmp_path, env=env,
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


def test_a_reply_s_escape_sequences_reach_a_terminal_escaped(
    tmp_path: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    configure(tmp_path, openai_server)
    openai_server.script(Reply(text=REPLY, chunks=9))
    seen = on_a_terminal([tai_executable(), "next", "-cli", "chat", "hi"], tmp_path, isolated_env)
    assert b"Here." in seen and b"done" in seen  # the reply and the block's result were shown
    assert b"\x1b]" not in seen and b"\x1b[2J" not in seen and b"\x07" not in seen
    assert seen.count(b"\\x1b]52;c;cm0gLXJmIH4=\\x07") >= 2  # shown, as text


def test_a_file_gets_the_reply_as_it_was_sent(
    tmp_path: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    assert HOSTILE in hostile_run(tmp_path, openai_server, isolated_env).stdout


def test_a_recorded_run_is_read_back_escaped_on_a_terminal(
    tmp_path: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    hostile_run(tmp_path, openai_server, isolated_env, "-record")
    seen = on_a_terminal([tai_executable(), "record", "-session", "1"], tmp_path, isolated_env)
    assert b"Here." in seen
    assert b"\x1b]" not in seen and b"\x07" not in seen
    assert b"\\x1b]0;owned\\x07" in seen


def test_a_coloured_diff_shows_a_file_s_control_characters_escaped() -> None:
    from tai_core.store import Change, render_diff

    change = Change("notes.md", "calm\n", f"calm\nloud{HOSTILE}\n")
    coloured = render_diff([change], color=True)
    assert "\x1b[32m+loud\\x1b]52;c;cm0gLXJmIH4=\\x07" in coloured  # green, and escaped
    assert "\x1b]" not in coloured and "\x07" not in coloured
    assert f"+loud{HOSTILE}\n" in render_diff([change], color=False)  # patch reads this


@pytest.mark.slow
def test_a_kept_conversation_is_shown_escaped_on_a_terminal(
    tmp_path: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    hostile_run(tmp_path, openai_server, isolated_env)
    listed = subprocess.run(
        [tai_executable(), "sessions"], cwd=tmp_path, env=isolated_env, capture_output=True,
        text=True, timeout=60, check=True,
    ).stdout.splitlines()  # fmt: skip
    session_id = listed[1].split()[0]
    for command in (["sessions", "show", session_id], ["sessions", "export", session_id]):
        seen = on_a_terminal([tai_executable(), *command], tmp_path, isolated_env)
        assert b"Here." in seen, command
        assert b"\x1b]" not in seen and b"\x07" not in seen, command
