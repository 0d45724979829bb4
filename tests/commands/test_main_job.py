"""The README's main job: the bundled Go module fixed through goal loops, end to end.

Once with the bundled replay model (exactly what `scripts/example.sh` runs) and once with
the same replies served by a local OpenAI-compatible server, so the whole path — outline,
go-src, change, go-test, done, the confirming loop — runs over real HTTP too.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tai_providers._transcript import parse
from tests.conftest import REPO, run_tai
from tests.servers import FakeModelServer, Reply

EXAMPLE = REPO / "examples" / "calc"
TASK = (
    "stats.Mean is wrong: the mean of 1, 2, 3 and 6 must be 3. Fix it and prove it with the tests."
)

pytestmark = pytest.mark.slow


def copy_example(tmp_path: Path) -> Path:
    work = tmp_path / "calc"
    shutil.copytree(EXAMPLE, work)
    return work


def assert_fixed(work: Path, result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Goal Achieved after 2 loop(s)" in result.stderr
    assert (
        "return Sum(values) / float64(len(values))\n" in (work / "stats" / "stats.go").read_text()
    )
    tests = subprocess.run(["go", "test", "./..."], cwd=work, capture_output=True, text=True)
    assert tests.returncode == 0, tests.stdout + tests.stderr


def test_the_example_fails_before(tmp_path: Path) -> None:
    tests = subprocess.run(["go", "test", "./..."], cwd=copy_example(tmp_path), capture_output=True)
    assert tests.returncode != 0  # the bug is real


def test_with_the_replay_model(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    work = copy_example(tmp_path)
    result = run_tai("-model", "replay:fix-mean.replay", "chat", TASK, cwd=work, env=isolated_env)
    assert_fixed(work, result)
    assert "-\treturn Sum(values) / float64(len(values)-1)" in result.stderr  # the diff


def test_with_an_openai_compatible_server(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    work = copy_example(tmp_path)
    replies = parse(EXAMPLE / "fix-mean.replay")
    openai_server.script(*(Reply(text=reply.text, chunks=7) for reply in replies))
    (work / "tai.toml").write_text(
        'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\n'
        f'model = "coder"\nbase_url = "{openai_server.base_url}"\napi_key = "sk-test"\n'
    )
    result = run_tai("chat", TASK, cwd=work, env=isolated_env)
    assert_fixed(work, result)
    bodies = [request.body for request in openai_server.requests]
    assert len(bodies) == 5
    first = json.dumps(bodies[0]["messages"])
    assert "begin of focus package example.com/calc/stats" in first
    assert "float64(len(values)-1)" not in first  # the outline carries no function bodies
    assert "float64(len(values)-1)" in json.dumps(bodies[1]["messages"])  # go-src brought it
    assert "Verify it" in json.dumps(bodies[3]["messages"])  # the confirming loop
