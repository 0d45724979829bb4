"""`-summarize-thoughts` as a user runs it: a reasoning model's thoughts are summarised by
the fast model (here the same local server) and shown on stderr, never fed back, and kept
as event nodes of the session tree; a summariser that fails costs nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.commands.test_next import configure
from tests.conftest import run_tai
from tests.servers import FakeModelServer, Reply

THOUGHTS = "The user asks about X.\nI should check Y first.\n\nThen Z."
SUMMARY = "<<松柏 summary\n- Works out X by checking Y.\n松柏\n"


@pytest.mark.slow
def test_thoughts_are_summarised_shown_and_kept(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    configure(tmp_path, openai_server)
    openai_server.script(Reply(thoughts=THOUGHTS, text="X is fine."), Reply(text=SUMMARY))
    result = run_tai("next", "-summarize-thoughts", "chat", "is X fine?", cwd=tmp_path,
                     env=isolated_env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == "X is fine.\n"
    assert "[thought summary] - Works out X by checking Y." in result.stderr
    assert THOUGHTS not in result.stderr  # the raw thoughts are not shown (no -thoughts)
    summarising = openai_server.requests[1].body["messages"]
    assert THOUGHTS in summarising[-1]["content"]
    (session,) = run_tai("sessions", cwd=tmp_path, env=isolated_env).stdout.splitlines()[1:]
    exported = run_tai("sessions", "export", session.split()[0], cwd=tmp_path, env=isolated_env)
    nodes = [json.loads(line) for line in exported.stdout.splitlines()]
    summaries = [n["body"] for n in nodes if n.get("attrs", {}).get("event") == "thought-summary"]
    assert summaries == ["- Works out X by checking Y."]
    assert len(openai_server.requests) == 2  # nothing was fed back: no further round


def test_a_failing_summariser_costs_nothing(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    configure(tmp_path, openai_server)
    config = tmp_path / "tai.toml"  # a top-level key, before the generators table
    config.write_text("summarize_thoughts = true\n" + config.read_text())
    openai_server.script(Reply(thoughts=THOUGHTS, text="X is fine."), Reply(fault="400"))
    result = run_tai("next", "chat", "is X fine?", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "X is fine.\n"
    assert "[thought summary]" not in result.stderr
