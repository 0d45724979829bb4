"""Goal loops on a real module make progress or end: spf13/cobra, with a model that
fetches a symbol and then answers with a summary, never ``done``."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import run_tai
from tests.servers import FakeModelServer, Reply

pytestmark = pytest.mark.slow

FETCH = "I need the source first.\n\n<<琥珀 go-src\ngithub.com/spf13/cobra.Command.Execute\n琥珀\n"
SUMMARY = "<<翡翠 summary\n- read Command.Execute; nothing to change yet\n翡翠\n"


def test_loops_that_change_nothing_end_the_run(
    tmp_path: Path,
    isolated_env: dict[str, str],
    openai_server: FakeModelServer,
    pinned: Callable[[str], Path],
) -> None:
    work = tmp_path / "cobra"
    shutil.copytree(pinned("cobra"), work)
    openai_server.script(*[Reply(text=FETCH), Reply(text=SUMMARY)] * 20)
    (work / "tai.toml").write_text(
        'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\n'
        f'model = "coder"\nbase_url = "{openai_server.base_url}"\napi_key = "sk-test"\n'
    )
    result = run_tai("chat", "Explain Command.Execute", cwd=work, env=isolated_env)
    assert result.returncode == 1, result.stderr[-3000:]
    assert result.stderr.count("=== Goal Loop") == 2
    last = result.stderr.strip().splitlines()[-1]
    assert last == "tai: error: 2 loops in a row changed no file and did not say done; stopping"
    bodies = [json.dumps(request.body["messages"]) for request in openai_server.requests]
    assert len(bodies) == 4
    assert "func (c *Command) Execute() error" in bodies[1]  # the fetch was answered
    assert "changed no file and did not write a done block" in bodies[2]
    assert bodies[0] != bodies[2]
