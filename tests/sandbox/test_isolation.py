"""A real sandboxed tai: what a command inside can and cannot write, signals, exit status."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ..conftest import run_tai, tai_executable
from .conftest import sandboxed

pytestmark = [pytest.mark.usefixtures("namespaces"), pytest.mark.permissions]

READ_ONLY = "Read-only file system"


@pytest.mark.parametrize(
    "target",
    ["$HOME/tai-sandbox-probe", "/etc/tai-sandbox-probe", "/usr/tai-sandbox-probe",
     "../outside", ".git/hooks/pre-commit", ".git/config", "tai.toml"],
)  # fmt: skip
def test_writes_outside_the_writable_set_fail(target: str, work: Path, env) -> None:
    before = (work / ".git" / "config").read_text()
    result = sandboxed(f"echo owned > {target}", work, env)
    assert result.returncode != 0
    assert READ_ONLY in result.stderr
    assert not (work.parent / "outside").exists()
    assert not Path("/etc/tai-sandbox-probe").exists()
    assert not (work / ".git" / "hooks" / "pre-commit").exists()
    assert (work / ".git" / "config").read_text() == before


def test_a_symlink_does_not_lead_into_the_hooks(work: Path, env) -> None:
    (work / "made-before").symlink_to(".git/hooks")
    result = sandboxed(
        "ln -s .git/hooks made-inside; echo a > made-inside/post-checkout;"
        " echo b > made-before/pre-push",
        work, env,
    )  # fmt: skip
    assert result.stderr.count(READ_ONLY) == 2
    assert (
        sorted(p.name for p in (work / ".git" / "hooks").iterdir() if "sample" not in p.name) == []
    )


def test_the_git_directory_cannot_be_swapped(work: Path, env) -> None:
    result = sandboxed("mv .git .git-old", work, env)
    assert result.returncode != 0
    assert "busy" in result.stderr.lower()
    assert (work / ".git" / "config").is_file()


def test_the_sandbox_cannot_be_undone(work: Path, env) -> None:
    script = "mount -o remount,rw /; umount .git/hooks; unshare -rm true; echo x > .git/hooks/x"
    result = sandboxed(script, work, env)
    assert result.returncode != 0
    assert not (work / ".git" / "hooks" / "x").exists()


def test_working_directory_and_tmp_are_writable(work: Path, env) -> None:
    probe = f"/tmp/tai-sandbox-probe-{work.parent.name}"
    result = sandboxed(f"echo made > made.txt && echo temp > {probe} && cat {probe}", work, env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "temp\n"
    assert (work / "made.txt").read_text() == "made\n"
    assert not Path(probe).exists()  # a fresh /tmp: nothing leaks to the host's


def test_a_subdirectory_under_tmp_still_sees_its_project_read_only(work: Path, env) -> None:
    """The fresh /tmp hides what is above a working directory there: the module root of
    a checkout in /tmp stays readable (so go finds its go.mod), never writable."""
    (work / "go.mod").write_text("module example.com/probe\n\ngo 1.20\n")
    sub = work / "sub"
    sub.mkdir()
    (sub / "s.go").write_text("package sub\n")
    result = sandboxed(
        "cat ../go.mod && go list -f '{{.ImportPath}}' . && touch ../outside", sub, env
    )
    assert "module example.com/probe" in result.stdout and "example.com/probe/sub" in result.stdout
    assert result.returncode != 0 and READ_ONLY in result.stderr
    assert not (work / "outside").exists()
    neighbour = work.parent / "neighbour"
    neighbour.mkdir()
    assert sandboxed(f"ls {neighbour}", sub, env).returncode != 0  # the rest of /tmp: fresh


@pytest.mark.slow
def test_a_go_module_builds_and_tests(work: Path, env) -> None:
    (work / "go.mod").write_text("module example.com/probe\n\ngo 1.20\n")
    (work / "add.go").write_text("package probe\n\nfunc Add(a, b int) int { return a + b }\n")
    (work / "add_test.go").write_text(
        'package probe\n\nimport "testing"\n\n'
        'func TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("sum")\n\t}\n}\n'
    )
    result = sandboxed("go vet ./... && go build ./... && go test -count=1 ./...", work, env)
    assert result.returncode == 0, result.stderr
    assert "ok  \texample.com/probe" in result.stdout


def test_exit_status_is_passed_back(work: Path, env) -> None:
    assert sandboxed("exit 7", work, env).returncode == 7


def _start(work: Path, env, program: str) -> subprocess.Popen[str]:
    """``program`` run sandboxed, once it has printed ``ready``; programs that wait for a
    signal wait without a time limit, so only a forwarded signal ends them."""
    process = subprocess.Popen(
        [tai_executable(), "sandbox", "run", "--", sys.executable, "-c", textwrap.dedent(program)],
        cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    assert process.stdout.readline() == "ready\n"
    return process


def test_signals_are_forwarded(work: Path, env) -> None:
    process = _start(work, env, """
        import signal, sys
        def stop(signum, frame):
            print("got", signum, flush=True)
            sys.exit(42)
        signal.signal(signal.SIGTERM, stop)
        print("ready", flush=True)
        signal.pause()
    """)  # fmt: skip
    process.send_signal(signal.SIGTERM)
    out, _ = process.communicate(timeout=20)
    assert out == f"got {signal.SIGTERM.value}\n"
    assert process.returncode == 42


def test_a_fatal_signal_is_passed_back(work: Path, env) -> None:
    process = _start(work, env, 'import signal\nprint("ready", flush=True)\nsignal.pause()')
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=20)  # a hang guard: only the forwarded signal ends it
    assert process.returncode == -signal.SIGTERM


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_the_sandbox_can_be_turned_off(how: str, work: Path, env) -> None:
    flags = ("-no-sandbox",) if how == "flag" else ()
    if how == "environment":
        env = {**env, "TAI_NO_SANDBOX": "1"}
    result = sandboxed("echo x > ../outside", work, env, *flags)
    assert result.returncode == 0, result.stderr
    assert (work.parent / "outside").exists()
    assert "no sandbox" in result.stderr


def test_a_tai_inside_does_not_enter_again(work: Path, env) -> None:
    result = sandboxed(
        "tai sandbox run -- true",
        work,
        {**env, "PATH": f"{Path(tai_executable()).parent}:{env['PATH']}"},
    )
    assert result.returncode == 0, result.stderr
    assert "already inside" in result.stderr


@pytest.mark.slow
def test_model_commands_enter_the_sandbox(work: Path, env) -> None:
    result = run_tai("next", "chat", "hello", cwd=work, env={**env, "TAI_TRACE_PLUGINS": "1"})
    assert "tai_enter_isolation" in result.stderr
    assert "returned 'sandbox: writable" in result.stderr
    for command in (["plugins"], ["parse", "-"], ["next", "--help"], ["policy", "check", "ls"]):
        traced = run_tai(*command, cwd=work, env={**env, "TAI_TRACE_PLUGINS": "1"}, stdin="")
        assert "tai_enter_isolation" not in traced.stderr, command


SHELL_BLOCKS = """
import json, sys
from pathlib import Path
from tai_core import Block
from tai_core.commands._session import Context
from tai_core.plugins import LoadOptions, PluginHost

host = PluginHost(LoadOptions())
host.load_entry_points()
kind = host.registry.block_kinds["shell"]
for body in sys.argv[1:]:
    block = Block(kind="shell", delimiter="W", params={}, body=body, line=1, start=0, end=0)
    context = Context(Path.cwd(), "go", {"shell": True}, host.pm.hook)
    result = host.pm.hook.tai_run_block(block=block, kind=kind, context=context)
    print(json.dumps([result.ok, result.text]))
"""


def test_shell_blocks_run_inside_the_sandbox(work: Path, env) -> None:
    bodies = [
        "echo owned > .git/hooks/pre-commit",
        # What the policy cannot read (a script written first) the sandbox still contains.
        "printf '%s' \"open('.git/hooks/'+'pre-commit', 'w')\" > w.py && python3 w.py",
        "echo built > built.txt && cat built.txt",
    ]
    result = run_tai(
        "sandbox", "run", "--", sys.executable, "-c", SHELL_BLOCKS, *bodies, cwd=work, env=env
    )
    assert result.returncode == 0, result.stderr
    refused, contained, allowed = (json.loads(line) for line in result.stdout.splitlines())
    assert refused[0] is False
    assert refused[1].startswith(f"Shell command rejected: {bodies[0]}\n\nError: a redirection")
    assert contained[0] is False and READ_ONLY in contained[1]
    assert allowed == [
        True,
        f"Shell command: {bodies[2]}\n\nCommand succeeded.\nStdout:\nbuilt\n\nStderr:\n",
    ]
    assert not (work / ".git" / "hooks" / "pre-commit").exists()
    assert (work / "built.txt").read_text() == "built\n"


@pytest.mark.parametrize("target", [".git/hooks/pre-commit", ".git/config", "../outside.txt"])
def test_change_blocks_cannot_reach_protected_paths(target: str, work: Path, env) -> None:
    (work / ".AI").write_text(f'<<甲乙 change(op="WRITE", file-path="{target}")\nowned\n甲乙\n')
    before = (work / ".git" / "config").read_text()
    result = run_tai("patch", cwd=work, env=env)
    assert result.returncode == 1
    assert (
        "protected" in result.stderr + result.stdout or "outside" in result.stderr + result.stdout
    )
    assert not (work / ".git" / "hooks" / "pre-commit").exists()
    assert not (work.parent / "outside.txt").exists()
    assert (work / ".git" / "config").read_text() == before


def test_change_blocks_write_the_working_directory(work: Path, env) -> None:
    (work / ".AI").write_text('<<甲乙 change(op="WRITE", file-path="notes/a.txt")\nnote\n甲乙\n')
    result = run_tai("patch", cwd=work, env=env)
    assert result.returncode == 0, result.stderr
    assert (work / "notes" / "a.txt").read_text().strip() == "note"


FALLBACK = """
import os, threading
from tai_sandbox._process import SandboxUnavailable, enter

def broken():
    raise OSError(1, "mount refused")

pid = os.getpid()
try:
    enter(broken)
except SandboxUnavailable as error:
    print("unavailable:", error)
release = threading.Event()
threading.Thread(target=release.wait).start()  # running until released, however slow we are
try:
    enter(lambda: None)
except SandboxUnavailable as error:
    print("unavailable:", error)
release.set()
unchanged = "TAI_IN_SANDBOX" not in os.environ
print("same process:", os.getpid() == pid, "no sandbox variable:", unchanged)
"""


def test_a_failed_entry_leaves_the_process_as_it_was(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", FALLBACK], cwd=tmp_path, capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "unavailable: [Errno 1] mount refused",
        "unavailable: 2 threads are running (a plugin started threads)",
        "same process: True no sandbox variable: True",
    ]
