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

from tai_provider_replay._transcript import parse
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


def _change(divisor: str) -> str:
    return (
        '<<翡翠 change(op="MODIFY", target="Mean", file-path="stats/stats.go")\n'
        "// Mean returns the arithmetic mean of values, or 0 for no values.\n"
        "func Mean(values []float64) float64 {\n\tif len(values) == 0 {\n\t\treturn 0\n\t}\n"
        f"\treturn Sum(values) / float64({divisor})\n}}\n翡翠\n\n"
        "<<珊瑚 summary\n- changed the divisor of Mean\n珊瑚\n"
    )


def _server_model(work: Path, server: FakeModelServer) -> None:
    (work / "tai.toml").write_text(
        'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\n'
        f'model = "coder"\nbase_url = "{server.base_url}"\napi_key = "sk-test"\n'
    )


def test_loops_that_change_one_function_differently_go_on(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    """The outline shows documentation only, so two loops that change a body differently
    would send the same context: the feedback carries the diff, and the run goes on."""
    work = copy_example(tmp_path)
    openai_server.script(*[Reply(text=_change(d)) for d in ("len(values)", "len(values)-1")] * 2)
    _server_model(work, openai_server)
    result = run_tai("-max-loops", "3", "chat", TASK, cwd=work, env=isolated_env)
    assert result.returncode == 1, result.stderr[-3000:]
    assert (
        result.stderr.strip().splitlines()[-1]
        == "tai: error: the goal was not confirmed within 3 loops"
    )
    bodies = [json.dumps(request.body["messages"]) for request in openai_server.requests]
    assert len(bodies) == 3
    assert "The previous loop changed stats/stats.go and did not write a done block" in bodies[1]
    assert "-\\treturn Sum(values) / float64(len(values)-1)" in bodies[1]  # the diff
    assert "+\\treturn Sum(values) / float64(len(values)-1)" in bodies[2]


def test_the_same_request_is_never_sent_twice_in_a_row(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    """A model whose shell block rewrites one file the same way in every loop changes a
    file each time, but the next loop's request would be the last one again: the run
    stops instead of sending it."""
    work = copy_example(tmp_path)
    stamp = (
        "<<琥珀 shell\necho generated > notes.txt\n琥珀\n\n<<珊瑚 summary\n- regenerated\n珊瑚\n"
    )
    done = "<<瑪瑙 summary\n- nothing more\n瑪瑙\n"
    openai_server.script(*[Reply(text=stamp), Reply(text=done)] * 5)
    _server_model(work, openai_server)
    result = run_tai("-shell", "chat", TASK, cwd=work, env=isolated_env)
    assert result.returncode == 1, result.stderr[-3000:]
    assert result.stderr.strip().splitlines()[-1] == (
        "tai: error: the next loop would send the previous loop's request again; stopping"
    )
    bodies = [json.dumps(request.body["messages"]) for request in openai_server.requests]
    assert len(bodies) == 4  # two loops of two requests; the third loop sends nothing
    assert "The previous loop changed notes.txt and did not write a done block" in bodies[2]


def test_each_loop_s_tree_starts_with_its_goal_node(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """A front-end shows the goal's story from the trees alone: each loop's session starts
    with a goal node (which loop, what it was told), after the generator's event node."""
    import json

    work = copy_example(tmp_path)
    result = run_tai("-model", "replay:fix-mean.replay", "chat", TASK, cwd=work, env=isolated_env)
    assert_fixed(work, result)
    ids = [line.split()[0] for line in
           run_tai("sessions", cwd=work, env=isolated_env).stdout.splitlines()[1:]]  # fmt: skip
    goals = []
    for session_id in reversed(ids):  # oldest first
        exported = run_tai("sessions", "export", session_id, cwd=work, env=isolated_env)
        nodes = [json.loads(line) for line in exported.stdout.splitlines()][1:]
        kinds = [node["kind"] for node in nodes if node["type"] == "node"]
        assert kinds[:2] == ["event", "goal"]
        goals += [node["attrs"] for node in nodes if node.get("kind") == "goal"]
    assert [(g["loop"], g["verdict"]) for g in goals] == [("1", "start"), ("2", "verify")]


def test_a_recorded_goal_loop_run_replays_as_one(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """Each goal loop is a recorded run of its own; the replay of any of them holds the
    replies of every loop of that tai command, so the whole run can be played again."""
    first = copy_example(tmp_path)
    recorded = run_tai("-model", "replay:fix-mean.replay", "-record", "chat", TASK, cwd=first,
                       env=isolated_env)  # fmt: skip
    assert_fixed(first, recorded)
    second = tmp_path / "second"
    shutil.copytree(EXAMPLE, second)
    (second / "fix-mean.replay").unlink()  # the replay written below is all it gets
    written = run_tai("record", "-session", "2", "-replay", "again.replay", cwd=second,
                      env=isolated_env)  # fmt: skip
    assert written.returncode == 0, written.stderr
    assert written.stderr == (
        "wrote the replies of runs 1 and 2 (the goal loops of one tai command) to again.replay\n"
    )
    replayed = run_tai("-model", "replay:again.replay", "chat", TASK, cwd=second,
                       env=isolated_env)  # fmt: skip
    assert_fixed(second, replayed)
    assert replayed.stdout == recorded.stdout


def test_undo_takes_back_every_goal_loop(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    """The fix came in the first loop, the second only confirmed it: undo after the command
    is undo of both, not of the last loop alone (which changed nothing)."""
    work = copy_example(tmp_path)
    before = (work / "stats" / "stats.go").read_text()
    assert_fixed(work, run_tai("-model", "replay:fix-mean.replay", "chat", TASK, cwd=work,
                               env=isolated_env))  # fmt: skip
    undone = run_tai("undo", cwd=work, env=isolated_env)
    assert undone.returncode == 0, undone.stderr
    assert (work / "stats" / "stats.go").read_text() == before
    assert undone.stdout == "restored stats/stats.go\n"
    assert "the goal loops of one tai command (before the first): 1 restored" in undone.stderr
