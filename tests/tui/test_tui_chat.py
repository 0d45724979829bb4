"""`tai ai` in the terminal UI on a real terminal (tmux): a prompt typed and answered, Enter
steering a reply in flight, Esc cancelling a stalled one while the chat goes on, a session
command, Ctrl-D leaving."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.commands.test_next import configure
from tests.conftest import as_sent, tai_executable
from tests.processes import wait_for
from tests.servers import FakeModelServer, Reply
from tests.terminal import Terminal


@pytest.fixture
def terminal(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> Iterator[Terminal]:
    configure(tmp_path, openai_server)
    config = tmp_path / "tai.toml"  # a stalled reply waits for the Esc, not a timeout
    config.write_text(config.read_text().replace("read_timeout = 2.0", "read_timeout = 60.0"))
    screen = Terminal([tai_executable(), "ai"], tmp_path,
                      {**isolated_env, "TERM": "xterm-256color"})  # fmt: skip
    try:
        yield screen
    finally:
        screen.close()


@pytest.mark.slow
def test_a_chat_in_the_ui(terminal: Terminal, openai_server: FakeModelServer) -> None:
    openai_server.script(
        Reply(text="Hello from the model.", chunks=2),
        Reply(text="Never all of this", fault="stall", chunks=4),
        Reply(text="Steered answer."),
        Reply(text="Never all of that", fault="stall", chunks=4),
        Reply(text="Back again."),
    )
    terminal.wait_for("ready — Enter sends")
    terminal.type("hello")
    terminal.send("Enter")
    screen = terminal.wait_for("Hello from the model.")
    assert ">> hello" in screen and "▾ Round 1" in screen
    terminal.type("tell me everything")
    terminal.send("Enter")
    terminal.wait_for("Esc cancels, Enter steers")
    # the stalled reply is the server's second: steer once its request is there (else
    # the steered request would take that reply, and stall)
    wait_for(lambda: len(openai_server.requests) == 2, "the second request")
    terminal.type("and briefly")
    terminal.send("Enter")  # steers the reply in flight
    steered = terminal.wait_for("Steered answer.")
    assert ">> and briefly" in steered  # above the attempt it started
    assert "and briefly" in str(openai_server.requests[-1].body["messages"])
    terminal.type("more")
    terminal.send("Enter")
    terminal.wait_for("Esc cancels, Enter steers")
    wait_for(lambda: len(openai_server.requests) == 4, "the fourth request")  # as above
    terminal.send("Escape")
    cancelled = terminal.wait_for("ready — Enter sends")
    assert "cancelled" in cancelled  # where the reply stopped
    terminal.type("again")
    terminal.send("Enter")
    terminal.wait_for("Back again.")
    last = openai_server.requests[-1].body["messages"]
    assert last[-1]["content"] == as_sent("again", "user-input-3")
    terminal.type("/help")
    terminal.send("Enter")
    helped = terminal.wait_for("/help — this list")  # in the Output tab, where it was typed
    assert "▾ /help" in helped
    terminal.send("F3")
    terminal.wait_for("command: /help — this list")
    terminal.send("C-d")
    screen = terminal.wait_for("[exited 0]")
    assert ">> again" in screen and "Back again." in screen  # the conversation stays
    assert "this list" not in screen.split("Back again.")[-1]  # a command's output does not


@pytest.mark.slow
def test_a_question_is_asked_in_the_ui_when_standard_error_is_redirected(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    """The UI answers questions in a dialog of its own: a redirected standard error (a log
    file) does not make every question take its default."""
    from tests.installed import plugin_distribution
    from tests.runtime.test_prompts import BLOCK, PLUGIN_MODULE, SUMMARY

    plugin_distribution(tmp_path / "site", PLUGIN_MODULE, name="confirm")
    openai_server.script(Reply(text=BLOCK), Reply(text=f"Done.\n{SUMMARY}"))
    configure(tmp_path, openai_server)
    env = {**isolated_env, "TERM": "xterm-256color", "PYTHONPATH": str(tmp_path / "site"),
           "TAI_NO_SANDBOX": "1"}  # fmt: skip
    command = ["sh", "-c", f"{shlex.quote(tai_executable())} ai 2>{tmp_path / 'log'}"]
    screen = Terminal(command, tmp_path, env)
    try:
        screen.wait_for("ready — Enter sends")
        screen.type("clean up")
        screen.send("Enter")
        screen.wait_for("Delete build/?")
        screen.send("y")
        screen.wait_for("Which colour?")
        screen.send("2")
        screen.wait_for("Done.")
        screen.send("C-d")
        screen.wait_for("[exited 0]")
    finally:
        screen.close()
    assert (
        "deleted: True, colour: blue" in openai_server.requests[1].body["messages"][-1]["content"]
    )


@pytest.mark.slow
def test_a_failed_turn_is_said_in_the_output_and_on_leaving(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    """A model that cannot be reached: the error stands under the prompt (not in Logs
    alone), and again when the chat ends with status 1."""
    openai_server.script(*(Reply(text="never", fault="500") for _ in range(4)))
    configure(tmp_path, openai_server)
    config = tmp_path / "tai.toml"
    config.write_text(config.read_text() + "retries = 0\n")
    screen = Terminal([tai_executable(), "ai"], tmp_path,
                      {**isolated_env, "TERM": "xterm-256color"})  # fmt: skip
    try:
        screen.wait_for("ready — Enter sends")
        screen.type("hello?")
        screen.send("Enter")
        shown = screen.wait_for("error: ")
        assert ">> hello?" in shown
        screen.send("C-d")
        left = screen.wait_for("[exited 1]")
        assert "tai: error: " in left
        assert "was not kept: no turn was answered" in left  # the opening promised its id
    finally:
        screen.close()


@pytest.mark.slow
def test_an_answer_is_shown_without_its_block_lines(
    terminal: Terminal, openai_server: FakeModelServer
) -> None:
    answer = '<<琥珀 response(parent="user-input-1", name="a1")\nThe answer is 42.\n琥珀\n'
    openai_server.script(Reply(text=answer))
    terminal.wait_for("ready — Enter sends")
    terminal.type("what is it?")
    terminal.send("Enter")
    screen = terminal.wait_for("The answer is 42.")
    assert "response(" not in screen.split("▾ Round 1")[1].split("ready —")[0]
    terminal.send("C-d")
    left = terminal.wait_for("[exited 0]")
    assert "The answer is 42." in left and "琥珀" not in left.split(">> what is it?")[-1]


@pytest.mark.slow
def test_quit_leaves_the_ui(terminal: Terminal) -> None:
    terminal.wait_for("ready — Enter sends")
    terminal.type("/quit")
    terminal.send("Enter")
    terminal.wait_for("[exited 0]")


def test_a_continued_chat_opens_with_its_conversation(
    terminal: Terminal, openai_server: FakeModelServer, tmp_path: Path, isolated_env
) -> None:
    answer = '<<琥珀 response(parent="user-input-1", name="a1")\nIt is 42.\n琥珀\n'
    openai_server.script(Reply(text=answer), Reply(text="Still 42."))
    terminal.wait_for("ready — Enter sends")
    terminal.type("what is it?")
    terminal.send("Enter")
    terminal.wait_for("It is 42.")
    terminal.send("C-d")
    terminal.wait_for("[exited 0]")
    again = Terminal([tai_executable(), "ai", "-continue"], tmp_path,
                     {**isolated_env, "TERM": "xterm-256color"})  # fmt: skip
    try:
        opened = again.wait_for("ready — Enter sends")
        assert ">> what is it?" in opened and "It is 42." in opened  # the turn so far
        assert "琥珀" not in opened.split(">> what is it?")[-1]  # shown as it was
        again.type("sure?")
        again.send("Enter")
        screen = again.wait_for("Still 42.")
        assert screen.index("It is 42.") < screen.index(">> sure?") < screen.index("Still 42.")
        assert "Round 2" in screen  # the session's rounds go on from there
    finally:
        again.close()


def test_a_mistyped_command_is_answered_in_the_output(terminal: Terminal) -> None:
    terminal.wait_for("ready — Enter sends")
    terminal.type("/hepl")
    terminal.send("Enter")
    screen = terminal.wait_for("error: no command /hepl")
    assert "▾ /hepl" in screen  # under its name, where it was typed, not in Logs alone
