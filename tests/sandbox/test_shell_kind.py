"""The shell kind runs its command for real: output, failures, time limit, caps."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from tai_block_kit.run import run_captured
from tai_core import Block
from tai_core.plugins import LoadOptions, PluginHost
from tai_kind_shell import ShellKind, shell_enabled

from ..conftest import run_context
from ..processes import group_members, running, wait_for


@cache
def _host() -> PluginHost:
    host = PluginHost(LoadOptions())
    host.load_entry_points()
    return host


def run(body: str, cwd: Path, **config: object):
    block = Block(kind="shell", delimiter="W", params={}, body=body, line=1, start=0, end=0)
    return ShellKind().execute(block, run_context(_host(), cwd, config=config))


def test_success_in_the_reference_shape(tmp_path: Path) -> None:
    result = run("pwd; echo oops >&2", tmp_path)
    assert result.ok
    assert result.text == (
        f"Shell command: pwd; echo oops >&2\n\nCommand succeeded.\nStdout:\n{tmp_path}\n\n"
        "Stderr:\noops\n"
    )


def test_failure_says_the_exit_status(tmp_path: Path) -> None:
    result = run("echo partial; exit 3", tmp_path)
    assert not result.ok
    assert "Command failed with error: exit status 3\nStdout:\npartial\n" in result.text


#: A shell that starts a background job and waits for it; the job records its PID, then
#: waits for the shell to be gone and writes ``late``. Only a kill of the whole group at the
#: time limit stops the job before it writes.
ORPHAN = """echo $$ > group
sh -c 'echo $$ > orphan; while kill -0 "$1" 2>/dev/null; do sleep 0.01; done; touch late' job $$ &
until [ -s orphan ]; do sleep 0.01; done
echo started
wait"""


@pytest.mark.slow
def test_the_time_limit_kills_the_whole_group(tmp_path: Path) -> None:
    result = run(ORPHAN, tmp_path, shell_timeout=1)
    assert not result.ok
    assert "timed out after 1 s (its process group was killed)" in result.text
    assert "started" in result.text  # the job was running when the limit came
    group = int((tmp_path / "group").read_text())
    orphan = int((tmp_path / "orphan").read_text())
    wait_for(lambda: not group_members(group) and not running(orphan), "the group to end")
    assert not (tmp_path / "late").exists()  # the job died; it did not end by writing


def test_output_is_capped_keeping_head_and_tail(tmp_path: Path) -> None:
    finished = run_captured(["sh", "-c", "seq 1 200000"], tmp_path, 10, limit=1000)
    assert finished.stdout.startswith("1\n2\n3\n")
    assert finished.stdout.endswith("199999\n200000\n")
    assert "bytes cut" in finished.stdout
    assert len(finished.stdout) < 1100


@pytest.mark.parametrize(
    ("config", "flag", "enabled"),
    [
        ({}, None, False),
        ({}, True, True),
        ({"shell": True}, None, True),
        ({"shell": True}, False, False),
        ({"allowed_shell_commands": ["make"]}, None, True),
        ({"allowed_shell_commands": ["make"]}, False, True),
        ({"allowed_shell_commands": []}, None, False),
        ({"allowed_shell_commands": []}, True, True),
    ],
)
def test_shell_enabled(config: dict, flag: bool | None, enabled: bool) -> None:
    assert shell_enabled(config, flag) is enabled


def test_without_any_shell_policy_nothing_runs(tmp_path: Path) -> None:
    unguarded = PluginHost(LoadOptions(blocked=frozenset({"shell-policy"})))
    unguarded.load_entry_points()
    block = Block(kind="shell", delimiter="W", params={}, body="touch ran", line=1, start=0, end=0)
    result = ShellKind().execute(block, run_context(unguarded, tmp_path))
    assert not result.ok
    assert result.text.startswith("Shell command rejected: touch ran\n\nError: no shell policy")
    assert not (tmp_path / "ran").exists()
