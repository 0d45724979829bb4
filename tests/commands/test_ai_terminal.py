"""`tai ai -cli` (the plain chat) on a real terminal (tmux): the prompt, a reply, Ctrl-C
cancelling a reply in flight while the chat goes on, the history kept, Ctrl-D leaving —
sandboxed, as a user runs it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.commands.test_next import configure
from tests.conftest import as_sent, tai_executable
from tests.servers import FakeModelServer, Reply
from tests.terminal import Terminal


@pytest.fixture
def terminal(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> Iterator[Terminal]:
    configure(tmp_path, openai_server)
    config = tmp_path / "tai.toml"  # a stalled reply waits for the Ctrl-C, not a timeout
    config.write_text(config.read_text().replace("read_timeout = 2.0", "read_timeout = 60.0"))
    env = {**isolated_env, "TERM": "xterm-256color"}
    screen = Terminal([tai_executable(), "ai", "-cli"], tmp_path, env)
    try:
        yield screen
    finally:
        screen.close()


@pytest.mark.slow
def test_a_chat_at_the_terminal(
    terminal: Terminal, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    openai_server.script(
        Reply(text="Hello from the model."),
        Reply(text="A long answer that never", fault="stall"),
        Reply(text="After the cancel."),
    )
    terminal.wait_for(">>")
    terminal.type("hi")
    terminal.send("Enter")
    terminal.wait_for("Hello from the model.")
    terminal.wait_for(">>", count=2)
    terminal.type("tell me more")
    terminal.send("Enter")
    terminal.wait_for("A long")  # the first half; the rest never comes
    terminal.send("C-c")  # cancels the reply in flight; the chat goes on
    screen = terminal.wait_for("tai: cancelled")
    terminal.wait_for(">>", count=3)
    terminal.type("again")
    terminal.send("Enter")
    terminal.wait_for("After the cancel.")
    terminal.wait_for(">>", count=4)
    terminal.send("C-d")
    screen = terminal.wait_for("[exited 0]")
    assert "Traceback" not in screen
    # the cancelled turn is not in the conversation the third request carried
    messages = [m["content"] for m in openai_server.requests[2].body["messages"][1:]]
    assert messages[1:] == ["Hello from the model.", as_sent("again", "user-input-2")]
    history = (Path(isolated_env["TAI_DATA_DIR"]) / "ai-history").read_text()
    assert "+hi" in history and "+tell me more" in history and "+again" in history


@pytest.mark.slow
def test_text_typed_while_a_reply_streams_waits_for_the_next_prompt(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    """What the user types ahead is neither echoed into the reply nor lost: it is the
    start of the next prompt."""
    configure(tmp_path, openai_server)  # read_timeout 2 s: the stalled reply fails then
    openai_server.script(Reply(text="Half an answer", fault="stall"),
                         Reply(text="Recovered."), Reply(text="Next one."))  # fmt: skip
    env = {**isolated_env, "TERM": "xterm-256color"}
    terminal = Terminal([tai_executable(), "ai", "-cli"], tmp_path, env)
    try:
        terminal.wait_for(">>")
        terminal.type("first")
        terminal.send("Enter")
        terminal.wait_for("Half")
        terminal.type("typed ahead")
        screen = terminal.wait_for("Recovered.")  # after the stall, the retry's answer
        reply = screen.split(">> first")[1].split("Recovered.")[0]
        assert "Half" in reply and "typed ahead" not in reply  # not echoed into the reply
        terminal.wait_for(">> typed ahead")  # waiting in the next prompt, not sent
        assert len(openai_server.requests) == 2
        terminal.send("Enter")
        terminal.wait_for("Next one.")
        assert openai_server.requests[-1].body["messages"][-1]["content"].startswith("typed ahead")
    finally:
        terminal.close()
