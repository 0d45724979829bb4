"""Approvals of shell commands: the three modes, the question with the policy's verdict
asked on a real terminal (a pseudo-terminal) and by a JSON-lines client, and destructive
commands refused without a question."""

from __future__ import annotations

import os
import select
import subprocess
import time
from pathlib import Path

import pytest

from tai_sandbox._approval import Chosen, approval, choose, mode_of
from tests.conftest import run_tai, tai_executable
from tests.serve.test_serve import Client
from tests.servers import FakeModelServer, Reply

pytestmark = [pytest.mark.usefixtures("namespaces")]


@pytest.mark.parametrize(
    ("mode", "allowed", "answer", "runs", "reason"),
    [
        ("auto", [], None, True, "no destructive pattern found"),
        ("auto", ["make test"], None, False, "it is not in allowed_shell_commands"),
        ("never", [], None, False, "approve = never"),
        ("never", ["make test"], None, False, "approve = never"),
        ("ask", [], True, True, "approved by the user (no destructive pattern found)"),
        ("ask", ["make"], False, False, "the user did not approve it"),
        ("ask", [], "nobody", False, "not approved: approve = ask, and no one can be asked"),
        ("sometimes", [], None, False, "approve must be one of auto, ask, never"),
    ],
)
def test_the_modes(mode: str, allowed: list[str], answer: object, runs: bool,
                   reason: str) -> None:  # fmt: skip
    questions: list[str] = []

    def ask(question: str) -> bool:
        questions.append(question)
        return bool(answer)

    verdict = approval("ls -la", allowed, mode, None if answer == "nobody" else ask)
    assert verdict[0] is runs and verdict[1].startswith(reason)
    if mode == "ask" and answer != "nobody":
        (question,) = questions
        assert "    ls -la" in question and "The policy: no destructive pattern found" in question
        assert ("not in allowed_shell_commands" in question) is bool(allowed)
    else:
        assert questions == []


def test_an_allowlist_refusal_names_the_list() -> None:
    assert approval("ls", ["make test", "go vet"], "auto", None) == (
        False, "it is not in allowed_shell_commands (matched as whole commands): make test; go vet",
    )  # fmt: skip


def test_the_flag_wins_over_the_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Chosen, "mode", "")
    assert mode_of({}) == "auto"
    assert mode_of({"approve": "never"}) == "never"
    choose(None, None, None)  # the flag not given
    assert mode_of({"approve": "never"}) == "never"
    choose(None, None, "ask")
    assert mode_of({"approve": "never"}) == "ask"


def replay(root: Path, *commands: str) -> None:
    blocks = "".join(f"<<甲乙 shell\n{command}\n甲乙\n" for command in commands)
    (root / ".model.replay").write_text(
        f"@@@ reply\nRunning.\n{blocks}@@@ reply\nDone.\n<<丙丁 summary\n- ran them\n丙丁\n"
    )


@pytest.fixture
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    return root


def test_never_runs_only_the_allowlist(work: Path, isolated_env: dict[str, str]) -> None:
    (work / "tai.toml").write_text('allowed_shell_commands = ["touch listed"]\n')
    replay(work, "touch listed", "touch other")
    result = run_tai("-approve", "never", "-model", "replay:.model.replay", "chat", "go",
                     cwd=work, env=isolated_env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (work / "listed").exists() and not (work / "other").exists()


@pytest.mark.parametrize("command", [[], ["code"], ["next"]])
def test_a_mistyped_mode_ends_tai_before_anything_runs(
    work: Path, isolated_env: dict[str, str], command: list[str]
) -> None:
    """`-approve nevr` with the default command implied was read only by the forgiving
    parse that decides isolation, so the run went on under the default mode, auto."""
    replay(work, "touch ran")
    result = run_tai("-approve", "nevr", *command, "-shell", "-model", "replay:.model.replay",
                     "chat", "go", cwd=work, env=isolated_env)  # fmt: skip
    assert result.returncode == 2
    assert "invalid value for -approve: 'nevr' is not one of 'auto', 'ask', 'never'" in (
        result.stderr
    )
    assert not (work / "ran").exists()


def test_ask_without_a_terminal_refuses_and_says_why(
    work: Path, isolated_env: dict[str, str]
) -> None:
    (work / "tai.toml").write_text('approve = "ask"\n')
    replay(work, "touch asked")
    transcript = (work / ".model.replay").read_text()
    (work / ".model.replay").write_text(
        transcript.replace(
            "@@@ reply\nDone.", "@@@ reply\n@@@ expect user: no one can be asked here\nDone."
        )
    )
    result = run_tai("-shell", "-model", "replay:.model.replay", "chat", "go", cwd=work,
                     env=isolated_env, stdin="y\n")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert not (work / "asked").exists()


def _read_until(fd: int, text: str, seen: bytearray, limit: float = 60.0, after: int = 0) -> None:
    """Read the terminal into ``seen`` until ``text`` is in it beyond ``after``."""
    deadline = time.monotonic() + limit
    while text.encode() not in seen[after:]:
        assert time.monotonic() < deadline, f"no {text!r} on the terminal: {bytes(seen)!r}"
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                seen += os.read(fd, 4096)
            except OSError:  # the other side closed
                break


def test_ask_on_a_plain_terminal_asks_each_command_and_never_a_destructive_one(
    work: Path, isolated_env: dict[str, str]
) -> None:
    replay(work, "touch yes", "touch no", "rm -rf ~")
    main, secondary = os.openpty()
    process = subprocess.Popen(
        [tai_executable(), "-approve", "ask", "-shell", "-model", "replay:.model.replay",
         "-cli", "chat", "go"], cwd=work, env={**isolated_env, "TERM": "dumb"},
        stdin=secondary, stdout=secondary, stderr=secondary,
    )  # fmt: skip
    os.close(secondary)
    seen = bytearray()
    try:
        _read_until(main, "touch yes", seen)
        _read_until(main, "[y/N]", seen)
        assert b"The policy: no destructive pattern found." in seen
        os.write(main, b"y\n")
        answered = len(seen)  # the next question's [y/N], not this one's: an answer typed
        _read_until(main, "touch no", seen, after=answered)  # before a question is dropped
        _read_until(main, "[y/N]", seen, after=answered)
        os.write(main, b"n\n")
        status = process.wait(timeout=120)
        _read_until(main, "ran them", seen, limit=5)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(main)
    assert status == 0, bytes(seen).decode(errors="replace")
    assert (work / "yes").exists() and not (work / "no").exists()
    assert seen.count(b"[y/N]") == 2  # rm -rf ~ was refused, never asked about


def test_a_json_lines_client_approves(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    from tests.commands.test_next import configure

    configure(tmp_path, openai_server)
    config = tmp_path / "tai.toml"
    config.write_text('approve = "ask"\n' + config.read_text())
    openai_server.script(
        Reply(text="<<甲乙 shell\ntouch approved\n甲乙\n"),
        Reply(text="<<甲乙 shell\ntouch refused\n甲乙\n"),
        Reply(text="Done."),
    )
    client = Client(tmp_path, isolated_env)
    client.send(type="start", session_id="s", shell=True, memory=False)
    client.until("session_started", session_id="s")
    client.send(type="submit", session_id="s", text="go")
    asked = client.until("prompt_requested", session_id="s")
    assert asked["kind"] == "confirm" and "touch approved" in asked["message"]
    client.send(type="respond", session_id="s", prompt_id=asked["prompt_id"], answer=True)
    second = client.until("prompt_requested", session_id="s", limit=60)
    assert second["prompt_id"] != asked["prompt_id"]
    client.send(type="respond", session_id="s", prompt_id=second["prompt_id"], answer=False)
    client.until("run_finished", session_id="s")
    status, _ = client.finish()
    assert status == 0
    assert (tmp_path / "approved").exists() and not (tmp_path / "refused").exists()
