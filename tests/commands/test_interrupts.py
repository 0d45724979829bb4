"""Ctrl-C as a user presses it: the whole foreground group gets SIGINT, whatever runs —
the stream, a shell block and its children, ``go test`` — and tai ends with status 130,
its last line saying exactly what reached the disk."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.conftest import tai_executable
from tests.processes import alive as _alive
from tests.processes import wait_for as _wait_for


def interrupt(root: Path, env: dict[str, str], marker: str, *args: str) -> tuple[int, str]:
    """Start a real run in its own process group, wait for ``marker`` in some process's
    command line, press Ctrl-C; the exit status and stderr."""
    process = subprocess.Popen(
        [tai_executable(), *args, "-model", "replay:.model.replay", "chat", "go"],
        cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    _wait_for(lambda: _alive(marker), f"{marker} to run")
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=20)
    _wait_for(lambda: not _alive(marker), "the block's processes to end")
    return process.returncode, stderr


def test_a_shell_block_is_stopped_and_the_written_rounds_are_named(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    duration = f"{3641 + os.getpid() % 1000 / 1000:.3f}"
    (tmp_path / ".model.replay").write_text(
        '@@@ reply\nFirst.\n<<甲乙 change(op="WRITE", file-path="a.txt")\na\n甲乙\n'
        "<<甲乙 continue\nnext\n甲乙\n"
        '@@@ reply\nSecond.\n<<甲乙 change(op="WRITE", file-path="b.txt")\nb\n甲乙\n'
        f"<<甲乙 shell\n(sleep {duration}) & sleep {duration}\n甲乙\n"
        "@@@ reply\nDone.\n<<丙丁 summary\n- done\n丙丁\n"
    )
    status, stderr = interrupt(tmp_path, isolated_env, duration, "-shell")
    assert status == 130, stderr
    last = stderr.strip().splitlines()[-1]
    assert last == (
        "tai: cancelled; round 1's changes were written: a.txt; "
        "round 2's changes were written: b.txt; round 2's blocks were stopped"
    )
    assert "Aborted" not in stderr and "Traceback" not in stderr


@pytest.mark.slow
def test_go_test_is_stopped(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    duration = f"{3643 + os.getpid() % 1000 / 1000:.3f}"
    (tmp_path / "go.mod").write_text("module example.com/slow\n\ngo 1.20\n")
    (tmp_path / "slow.go").write_text("package slow\n")
    (tmp_path / "slow_test.go").write_text(
        'package slow\n\nimport (\n\t"os/exec"\n\t"testing"\n)\n\n'
        f'func TestSlow(t *testing.T) {{ _ = exec.Command("sleep", "{duration}").Run() }}\n'
    )
    (tmp_path / ".model.replay").write_text(
        "@@@ reply\nTesting.\n<<甲乙 go-test\n-run\nTestSlow\n甲乙\n"
        "@@@ reply\nDone.\n<<丙丁 summary\n- tested\n丙丁\n"
    )
    status, stderr = interrupt(tmp_path, isolated_env, duration)
    assert status == 130, stderr
    assert stderr.strip().splitlines()[-1] == "tai: cancelled; nothing of round 1 was applied"
