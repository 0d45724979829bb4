"""A crash mid-turn loses at most that turn: a real process runs a session through the
runtime against a local model server, finishes a turn, starts another, and is killed with
SIGKILL while the model streams; the database it leaves is read back by this process."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from tai_core.sessions import SessionStore
from tests.conftest import as_sent
from tests.processes import wait_for
from tests.servers import FakeModelServer, Reply

DRIVER = """
import asyncio, json, sys
from pathlib import Path
import attrs
from tai_core.commands._session import make_setup
from tai_core.models import resolve_model
from tai_core.plugins import LoadOptions, PluginHost
from tai_core.runtime import EventBus, Runtime, StartSession, Submit
from tai_core.sessions import SessionStore

base_url, database, cwd = sys.argv[1:4]
host = PluginHost(LoadOptions())
host.load_entry_points()
config = {"generators": [{"name": "local", "type": "openai", "model": "m",
                          "base_url": base_url, "api_key": "k"}]}
spec = resolve_model("local", config, host.registry.providers, {})
setup = make_setup(host, config, (host.registry.providers[spec.provider], spec),
                   command="next", system="SYSTEM", require_completion=False, cwd=Path(cwd))
setup = attrs.evolve(setup, options=attrs.evolve(setup.options, session_id="s1"))

async def main():
    runtime = Runtime(host.pm.hook, EventBus(), store=SessionStore(Path(database)))
    runtime.handle(StartSession(setup))
    for text in ("one", "two"):
        runtime.handle(Submit("s1", text))
        await runtime.wait("s1")
        await runtime.settle()
        print("turn ended", flush=True)

asyncio.run(main())
"""


def test_a_session_killed_mid_turn_keeps_its_earlier_turns(tmp_path: Path) -> None:
    database = tmp_path / "sessions.db"
    with FakeModelServer("openai") as server:
        server.script(Reply(text="first answer"), Reply(text="half of the second", fault="stall"))
        process = subprocess.Popen(
            [sys.executable, "-c", DRIVER, server.base_url, str(database), str(tmp_path)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert process.stdout is not None
            assert process.stdout.readline() == "turn ended\n"
            wait_for(lambda: len(server.requests) == 2, "the second request")
            wait_for(lambda: _status(database) == "streaming", "the second turn's save")
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        finally:
            process.kill()
            process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL
    stored = SessionStore(database).load("s1")
    assert [(m.role, m.text) for m in stored.messages] == [
        ("user", as_sent("one", "user-input-1")), ("assistant", "first answer")
    ]  # fmt: skip
    assert stored.header.status == "streaming"  # how a crash mid-turn is recognised
    assert [node.body for _, node in stored.tree if node.kind == "user-input"] == ["one"]
    with sqlite3.connect(database) as db:  # the database is whole: SQLite's own check
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def _status(database: Path) -> str | None:
    """The saved status of session s1, read as another process reads it."""
    with sqlite3.connect(database) as db:
        row = db.execute("SELECT status FROM sessions WHERE id = 's1'").fetchone()
    return row[0] if row else None
