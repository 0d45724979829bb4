"""`tai serve -stdio` as another program drives it: a real `tai` subprocess, commands
written as JSON lines, events read back as JSON lines, a local model server; the decoding
of commands fuzzed; the generated reference checked against the code."""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tai_core.serve import BadRequest, Encoder, decode
from tai_core.serve._wire import Start, SubmitText, Update
from tai_core.tree import NodeKind, NodeSpec, SessionTree
from tests.commands.test_next import configure
from tests.conftest import REPO, as_sent, tai_executable
from tests.sandbox.conftest import namespaces_refused
from tests.servers import FakeModelServer, Reply


class Client:
    """A `tai serve -stdio` process and its event lines."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [tai_executable(), "serve", "-stdio"], cwd=cwd, env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        #: Every event read so far, and those not yet passed by :meth:`until`.
        self.seen: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self._buffer = b""

    def send(self, **command: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(command) + "\n").encode())
        self.process.stdin.flush()

    def send_raw(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def until(self, kind: str, limit: float = 30.0, **fields: Any) -> dict[str, Any]:
        """Read events until one of ``kind`` with ``fields`` comes (failing after
        ``limit`` seconds: a bound for a hang); the events up to it are passed."""
        assert self.process.stdout is not None
        deadline = time.monotonic() + limit
        while True:
            for index, event in enumerate(self.events):
                if event["type"] == kind and all(event.get(k) == v for k, v in fields.items()):
                    del self.events[: index + 1]
                    return event
            if not select.select([self.process.stdout], [], [], deadline - time.monotonic())[0]:
                pytest.fail(f"no {kind} event; so far {self.events}")
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                pytest.fail(f"the server ended before a {kind} event; so far {self.events}")
            self._buffer += chunk
            *lines, self._buffer = self._buffer.split(b"\n")
            self._add([json.loads(line) for line in lines])

    def _add(self, events: list[dict[str, Any]]) -> None:
        self.seen += events
        self.events += events

    def finish(self, limit: float = 60.0) -> tuple[int, str]:
        """Close the server's input and read the rest until it ends (failing after
        ``limit`` seconds); its exit status and standard error."""
        rest, stderr = self.process.communicate(timeout=limit)
        self._add([json.loads(line) for line in (self._buffer + rest).splitlines()])
        return self.process.returncode, stderr.decode()


@pytest.fixture
def client(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> Iterator[Client]:
    configure(tmp_path, openai_server)
    config = tmp_path / "tai.toml"  # a stalled reply waits for the cancel, not a timeout
    config.write_text(config.read_text().replace("read_timeout = 2.0", "read_timeout = 60.0"))
    served = Client(tmp_path, isolated_env)
    try:
        yield served
    finally:
        served.process.kill()
        served.process.wait(timeout=30)


def test_a_session_over_json_lines(client: Client, openai_server: FakeModelServer) -> None:
    openai_server.script(
        Reply(text="First answer."),
        Reply(text="A long answer that never", fault="stall"),
        Reply(text="Third."),
    )
    client.send(type="start", session_id="s1")
    client.until("session_started", session_id="s1", command="ai", model="local")
    client.send(type="submit", session_id="s1", text="hello")
    client.until("run_finished", session_id="s1")
    texts = [e["text"] for e in client.seen if e["type"] == "text_received"]
    assert "".join(texts) == "First answer."
    nodes = [n for e in client.seen if e["type"] == "tree_changed" for n in e["nodes"]]
    assert [(n["name"], n["kind"]) for n in nodes][:2] == [
        ("event-1", "event"), ("user-input-1", "user-input")  # the generator, the input
    ]  # fmt: skip
    assert len({n["name"] for n in nodes}) == len(nodes)  # each node sent once
    client.send(type="submit", session_id="s1", text="more")
    client.until("text_received", session_id="s1")
    client.send(type="cancel", session_id="s1")  # reaches the streaming turn
    client.until("run_cancelled", session_id="s1")
    client.send_raw("not json")
    error = client.until("notice", level="error")
    assert error["message"].startswith("not JSON")
    client.send(type="update", session_id="s1", temperature=0.25)
    client.until("session_updated", session_id="s1")
    client.send(type="submit", session_id="s1", text="again")
    client.until("run_finished", session_id="s1")
    client.send(type="list")
    (listed,) = client.until("sessions_listed")["sessions"]
    assert (listed["id"], listed["messages"], listed["system_prompt"]) == ("s1", 4, "")
    status, stderr = client.finish()  # the end of the input closes the session
    assert status == 0, stderr
    assert any(e["type"] == "session_closed" for e in client.events)
    third = openai_server.requests[2].body
    assert third["temperature"] == 0.25
    assert [m["content"] for m in third["messages"][2:]] == [
        "First answer.", as_sent("again", "user-input-2")]  # fmt: skip
    first_input = as_sent("hello", "user-input-1")
    assert third["messages"][1]["content"].endswith(f"# Task\n\n{first_input}")  # rules first


def test_errors_are_events_and_the_server_goes_on(client: Client) -> None:
    client.send(type="submit", session_id="nope", text="hi")
    assert client.until("notice")["message"] == "no session 'nope'"
    client.send(type="start", model="unknown-model")
    assert "unknown-model" in client.until("notice", level="error")["message"]
    client.send(type="start", command="next")
    assert client.until("notice")["message"] == "start: only ai sessions are served"
    client.send(type="load", session_id="absent")
    assert client.until("notice", level="error")["message"] == "no session 'absent'"
    client.send(type="submit", session_id="s9")  # a bad command of a session: answered there
    unusable = client.until("notice", level="error")
    assert (unusable["session_id"], unusable["message"]) == ("s9", "submit: text is missing")
    status, _ = client.finish()
    assert status == 0


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("[1]", "a command is a JSON object"),
        ('{"type": "fly"}', "unknown command type 'fly'"),
        ('{"session_id": "x"}', "a command needs a type (one of cancel, close"),
        ('{"type": "submit", "session_id": "x"}', "submit: text is missing"),
        ('{"type": "submit", "session_id": "x", "text": 3}', "submit: text must be string"),
        ('{"type": "cancel", "session_id": "x", "why": 1}', "cancel: unknown fields ['why']"),
        ('{"type": "update", "session_id": "x", "temperature": true}',
         "update: temperature must be number or null"),
        ('{"type": "list", "limit": 1.5}', "list: limit must be integer"),
        ('{"type": "list", "limit": 0}', "list: limit must be at least 1, not 0"),
        ('{"type": "list", "limit": -1}', "list: limit must be at least 1, not -1"),
    ],
)  # fmt: skip
def test_bad_commands_are_named(line: str, reason: str) -> None:
    with pytest.raises(BadRequest) as raised:
        decode(line)
    assert str(raised.value).startswith(reason)


def test_commands_are_decoded_with_their_defaults() -> None:
    assert decode('{"type": "start"}') == Start()
    assert decode('{"type": "submit", "session_id": "a", "text": "t"}') == SubmitText("a", "t")
    assert decode('{"type": "update", "session_id": "a", "temperature": 1}') == Update(
        "a", temperature=1
    )


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=10,
)


@given(
    st.dictionaries(
        st.sampled_from(["type", "session_id", "text", "limit", "model", "x"]),
        json_values | st.sampled_from(["submit", "start", "list", "cancel"]),
    )
)
def test_no_line_raises_anything_but_a_bad_request(command: dict[str, Any]) -> None:
    with contextlib.suppress(BadRequest):
        decode(json.dumps(command))


def test_tree_nodes_are_sent_once_each() -> None:
    from tai_core.events import TreeChanged

    encoder = Encoder()
    tree, user = SessionTree().add(NodeSpec(NodeKind.USER_INPUT, body="hi"))
    first = json.loads(encoder.encode(TreeChanged("s", tree)))
    tree, _ = tree.add(NodeSpec(NodeKind.RESPONSE, body="answer", parent=user))
    second = json.loads(encoder.encode(TreeChanged("s", tree)))
    assert [n["name"] for n in first["nodes"]] == ["user-input-1"]
    assert second["nodes"] == [
        {"name": "response-1", "parent": "user-input-1", "kind": "response", "body": "answer",
         "attrs": {}}
    ]  # fmt: skip
    other = json.loads(encoder.encode(TreeChanged("t", tree)))  # another session: all of it
    assert len(other["nodes"]) == 2


@pytest.mark.parametrize("anew", ["started", "reset"])
def test_a_session_started_again_or_reset_gets_its_whole_tree(anew: str) -> None:
    from tai_core.events import SessionReset, SessionStarted, TreeChanged

    encoder = Encoder()
    tree, _ = SessionTree().add(NodeSpec(NodeKind.USER_INPUT, body="hi"))
    encoder.encode(TreeChanged("s", tree))
    encoder.encode(SessionStarted("s", "ai", "m") if anew == "started" else SessionReset("s"))
    again = json.loads(encoder.encode(TreeChanged("s", tree)))  # a load's tree, a new turn's
    assert [n["name"] for n in again["nodes"]] == ["user-input-1"]


def test_the_protocol_reference_is_generated_from_the_code() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "protocol_docs.py"), "--check"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_a_session_started_again_and_a_load_right_before_a_submit(
    client: Client, openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(text="One."), Reply(text="Two."))
    client.send(type="start", session_id="s1")
    client.send(type="start", session_id="s1")  # taken: said, and the server goes on
    assert client.until("notice", level="error")["message"] == "a session 's1' already exists"
    client.send(type="submit", session_id="s1", text="hello")
    client.until("run_finished", session_id="s1")
    client.send(type="close", session_id="s1")
    client.until("session_closed", session_id="s1")
    client.send(type="load", session_id="s1")  # done before the next line is read
    client.send(type="submit", session_id="s1", text="again")
    client.until("session_loaded", session_id="s1")
    client.until("run_finished", session_id="s1")
    status, stderr = client.finish()
    assert status == 0 and "Traceback" not in stderr
    assert [m["content"] for m in openai_server.requests[1].body["messages"][2:]] == [
        "One.", as_sent("again", "user-input-2")
    ]  # fmt: skip


def test_kept_sessions_are_named_by_prefixes(
    client: Client, openai_server: FakeModelServer, tmp_path: Path
) -> None:
    openai_server.script(Reply(text="One."), Reply(text="Two."))
    for session_id in ("abc123", "abd456"):
        client.send(type="start", session_id=session_id)
        client.send(type="submit", session_id=session_id, text="hello")
        client.until("run_finished", session_id=session_id)
        client.send(type="close", session_id=session_id)
        client.until("session_closed", session_id=session_id)
    client.send(type="load", session_id="abc")
    assert client.until("session_loaded")["session_id"] == "abc123"
    client.send(type="export", session_id="abd", path=str(tmp_path / "out.jsonl"))
    assert client.until("session_exported")["session_id"] == "abd456"
    if not namespaces_refused():  # outside the working directory the sandbox writes nothing
        client.send(type="export", session_id="abd", path="/var/tmp/tai-test-export.jsonl")
        assert client.until("notice")["message"] == (
            "cannot write /var/tmp/tai-test-export.jsonl: Read-only file system (inside tai's "
            "sandbox only the working directory and tai's own directories are writable: "
            "export there)"
        )
    client.send(type="delete", session_id="ab")
    assert client.until("notice")["message"] == "'ab' names 2 sessions: abc123, abd456"
    client.send(type="load", session_id="zzz")  # no model is needed to say so
    assert client.until("notice")["message"] == "no session 'zzz'"
    client.send(type="load", session_id="")
    assert client.until("notice")["message"] == "no session ''"
    status, _ = client.finish()
    assert status == 0


def test_session_commands_over_json_lines(client: Client) -> None:
    client.send(type="start", session_id="s2")
    client.until("session_started", session_id="s2")
    client.send(type="command", session_id="s2", command="help")
    finished = client.until("extension_command_finished", session_id="s2", name="help")
    listed = finished["output"].splitlines()  # the built-in agent commands, then how back
    assert listed[0].startswith("/init — ") and listed[-2:] == [
        "/agent off — back to the session's own prompt, kinds and model", "/help — this list",
    ]  # fmt: skip
    client.send(type="command", session_id="s2", command="nope", args="x")
    error = client.until("notice", session_id="s2", level="error")
    assert error["message"].startswith("no command /nope")
    status, stderr = client.finish()
    assert status == 0, stderr


GREETER = """
from tai_core import hookimpl
from tai_core.plugins import SessionCommand

@hookimpl
def tai_register_session_commands(register):
    register(SessionCommand("greet", "Say hello.", lambda session, args: "hello " + args))
"""


def test_reload_takes_in_a_plugin_installed_and_a_configuration_changed_meanwhile(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    from tests.installed import plugin_distribution

    work = tmp_path / "work"
    work.mkdir()
    configure(work, openai_server)
    site = tmp_path / "site"
    site.mkdir()
    served = Client(work, {**isolated_env, "PYTHONPATH": str(site)})
    try:
        served.send(type="start", session_id="s")
        served.until("session_started", session_id="s")
        served.send(type="command", session_id="s", command="greet", args="you")
        assert served.until("notice", level="error")["message"].startswith("no command /greet")
        plugin_distribution(site, GREETER, name="greeter")  # installed while it runs
        served.send(type="reload")
        reloaded = served.until("extensions_reloaded")
        assert "greeter" in reloaded["plugins"] and reloaded["problems"] == []
        served.send(type="command", session_id="s", command="greet", args="you")
        assert served.until("extension_command_finished", name="greet")["output"] == "hello you"
        config = work / "tai.toml"  # top-level keys go before its [[generators]] table
        config.write_text('disabled_plugins = ["greeter"]\nmodle = "typo"\n' + config.read_text())
        served.send(type="reload")
        refused = served.until("notice", level="error")["message"]
        assert refused.startswith("the extensions were not reloaded: ") and "'modle'" in refused
        served.send(type="command", session_id="s", command="greet", args="again")
        assert served.until("extension_command_finished", name="greet")["output"] == "hello again"
        config.write_text(config.read_text().replace('modle = "typo"\n', ""))
        served.send(type="reload")
        assert "greeter" not in served.until("extensions_reloaded")["plugins"]
        openai_server.script(Reply(text="Still here."))
        served.send(type="submit", session_id="s", text="hello")  # the session goes on
        served.until("run_finished", session_id="s")
        status, stderr = served.finish()
        assert status == 0, stderr
    finally:
        served.process.kill()
        served.process.wait(timeout=30)


def test_the_rules_go_with_every_submit_to_an_empty_conversation(
    client: Client, openai_server: FakeModelServer
) -> None:
    """A first turn that keeps nothing (cancelled) and a reset leave the conversation
    empty: the next submit carries the session's rules again, as the first did."""
    openai_server.script(
        Reply(text="never finished", fault="stall"), Reply(text="One."), Reply(text="Two."),
        Reply(text="Three."),
    )  # fmt: skip
    client.send(type="start", session_id="s1")
    client.until("session_started", session_id="s1")
    client.send(type="submit", session_id="s1", text="first")
    client.until("text_received", session_id="s1")
    client.send(type="cancel", session_id="s1")
    client.until("run_cancelled", session_id="s1")
    for text in ("second", "third"):
        client.send(type="submit", session_id="s1", text=text)
        client.until("run_finished", session_id="s1")
    client.send(type="reset", session_id="s1")
    client.until("session_reset", session_id="s1")
    client.send(type="submit", session_id="s1", text="fourth")
    client.until("run_finished", session_id="s1")
    status, stderr = client.finish()
    assert status == 0, stderr
    first, second, third, fourth = (request.body["messages"] for request in openai_server.requests)
    rules = first[1]["content"].removesuffix(as_sent("first", "user-input-1"))
    assert rules.endswith("# Task\n\n") and len(rules) > len("# Task\n\n")
    assert second[1]["content"] == rules + as_sent("second", "user-input-1")
    second_input, third_input = as_sent("second", "user-input-1"), as_sent("third", "user-input-2")
    assert [m["content"] for m in third[1:]] == [rules + second_input, "One.", third_input]
    assert [m["content"] for m in fourth[1:]] == [rules + as_sent("fourth", "user-input-1")]
    # the client's tree follows: the cancelled input was taken back and its name reused
    trees = [e for e in client.seen if e["type"] == "tree_changed"]
    inputs = {n["name"]: n["body"] for t in trees for n in t["nodes"] if n["kind"] == "user-input"}
    assert inputs["user-input-1"] == "fourth" and inputs["user-input-2"] == "third"
    (replacing,) = [t for t in trees if t["replaced"]]  # a reset starts a new tree instead
    assert [n["body"] for n in replacing["nodes"] if n["kind"] == "user-input"] == ["second"]
