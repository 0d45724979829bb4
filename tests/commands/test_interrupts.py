"""Ctrl-C as a user presses it: the whole foreground group gets SIGINT, whatever runs —
the stream, a shell block and its children, ``go test`` — and tai ends with status 130,
its last line saying exactly what reached the disk; and at any moment of its start, one line
and 130, never a traceback."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
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
    assert stderr.strip().splitlines()[-1] == (
        "tai: cancelled; round 1's blocks were stopped (what its programs wrote stays: tai "
        "undo brings the tree back)"
    )


#: The console script, with one byte on stdout once the interpreter has started and
#: tai's entry point is imported: the signal is timed from there.
SCRIPT = """
import os, sys
from tai_core.cli import launch
sys.argv = ["tai", *sys.argv[1:]]
os.write(1, b"!")
launch()
"""

REPLAY = "@@@ reply\nThe answer.\n<<甲乙 summary\n- answered\n甲乙\n"


def _start(work: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], float]:
    """tai answering from the replay model in its own process group; the moment its entry
    point was reached."""
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, "-model", "replay:.model.replay", "chat", "answer"],
        cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )  # fmt: skip
    assert process.stdout is not None and process.stdout.read(1) == b"!"
    return process, time.monotonic()


@pytest.mark.slow
def test_ctrl_c_at_any_moment_of_a_run_is_one_line_and_130(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """The signal is sent at points spread over a whole run, from just after the console
    script has started (the interpreter's own start, before any of tai's code runs, is not
    tai's to handle) to its end: while plugins load, attrs compiles, the sandbox is built in
    its three processes, the context is collected, the reply streams. A ``kill`` sent to the
    group reaches tai directly and again through the sandbox's outer processes, which
    forward it: tai may get it two or three times within milliseconds, and still never
    shows a traceback."""
    work, env = tmp_path, isolated_env
    (work / ".model.replay").write_text(REPLAY)
    process, started = _start(work, env)
    out, err = process.communicate(timeout=60)
    whole = time.monotonic() - started
    assert process.returncode == 0, err.decode()
    assert b"The answer." in out  # an uninterrupted run answers: the runs below are real

    outcomes = []
    for step in range(1, 13):  # at 0 the signal may come before launch() is called
        process, started = _start(work, env)
        time.sleep(whole * step / 12)
        with contextlib.suppress(ProcessLookupError):  # the run was over: it answered
            os.killpg(process.pid, signal.SIGINT)
        try:
            out, err = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            pytest.fail(f"tai did not end after a Ctrl-C {whole * step / 12:.2f} s in")
        said = err.decode()
        outcomes.append(process.returncode)
        assert "Traceback" not in said and "KeyboardInterrupt" not in said, said
        # ended by the signal (the interpreter's own, once it is shutting down, or the
        # run was over when it came) or with 130 and the line that says so
        assert process.returncode in (130, -signal.SIGINT, 0), said
        if process.returncode == 0:
            assert b"The answer." in out, said
        if process.returncode == 130:
            assert (
                said.rstrip().splitlines()[-1].startswith(("tai: interrupted", "tai: cancelled"))
            ), said
    assert outcomes.count(0) <= 6, outcomes  # most signals came while tai ran


def _example_interrupted(tmp_path: Path, env: dict[str, str], at: str) -> tuple[int, str]:
    """The bundled Go example's goal loops, Ctrl-C pressed when a line of standard error
    starts with ``at``: the exit status and the whole of standard error."""
    import shutil

    work = tmp_path / "calc"
    shutil.copytree(Path(__file__).parents[2] / "examples" / "calc", work)
    task = "stats.Mean is wrong: the mean of 1, 2, 3 and 6 must be 3. Fix it and prove it."
    env = {**env, "PATH": f"/usr/local/go/bin:{env.get('PATH', '')}"}
    process = subprocess.Popen(
        [tai_executable(), "-model", "replay:fix-mean.replay", "chat", task],
        cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )  # fmt: skip
    assert process.stderr is not None
    said = []
    for line in process.stderr:
        said.append(line)
        if line.startswith(at):
            os.killpg(process.pid, signal.SIGINT)
            break
    said.append(process.communicate(timeout=30)[1])
    return process.returncode, "".join(said)


#: A Ctrl-C while a class is made: Python 3.11 turns the KeyboardInterrupt raised in a
#: descriptor's ``__set_name__`` into a RuntimeError (an import's class, in CI once).
SET_NAME_PROBE = """
import os, signal
from tai_core.cli._interrupt import interruptible

class Descriptor:
    def __set_name__(self, owner, name):
        os.kill(os.getpid(), signal.SIGINT)

def body():
    class Owner:
        field = Descriptor()

interruptible(body)
"""


def test_ctrl_c_while_a_class_is_made_is_one_line_and_130() -> None:
    done = subprocess.run([sys.executable, "-c", SET_NAME_PROBE], capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert (done.returncode, done.stderr) == (130, "\ntai: interrupted\n")


@pytest.mark.slow
def test_ctrl_c_as_a_goal_loop_ends_stops_the_loops(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """The first loop of the bundled example is over (its usage table printed, the fix on
    disk) when Ctrl-C comes: too late to cancel that run, but the user asked to stop, so
    the second loop never starts and tai ends with 130 — it went on to a second loop and
    ended 0."""
    status, said = _example_interrupted(tmp_path, isolated_env, "total ")
    assert status == 130, said
    assert "Goal Loop 2" not in said
    assert said.rstrip().splitlines()[-1].startswith(("tai: cancelled", "tai: interrupted"))


@pytest.mark.slow
def test_ctrl_c_in_a_later_goal_loop_names_what_the_earlier_ones_wrote(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """Whether the Ctrl-C comes between the loops or in the second one's run (whose own
    line speaks of its rounds only), the first loop's fix is named as written."""
    status, said = _example_interrupted(tmp_path, isolated_env, "=== Goal Loop 2")
    assert status == 130, said
    assert "tai: the earlier loops wrote: stats/stats.go\n" in said
