"""The sandbox's four processes (tai_sandbox._process), driven directly: a small Python
program calls ``enter`` and does one thing as tai inside, and the test checks from outside
what the user's shell and system would see — exit statuses, signals, the namespaces and
confinement tai is left in, the processes that remain. Each program takes a fraction of a
second, so every mutant of the module can be run against all of them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator

import pytest

from ..processes import alive, running, wait_for

pytestmark = [pytest.mark.usefixtures("namespaces"), pytest.mark.permissions]

DRIVER = """
import os, signal, sys, time
from tai_sandbox._process import SandboxUnavailable, enter

first = os.getpid()

def outer(pid="self"):
    # /proc is still the outer one: its PIDs are the ones the system sees
    with open(f"/proc/{pid}/status") as status:
        fields = dict(line.split(":", 1) for line in status)
    return int(fields["NSpid"].split()[0]), int(fields["PPid"])

def on_exit(status):
    print("on_exit in the first process:", os.getpid() == first, "status", status, flush=True)

def start():
    result = enter(os.getpid, on_exit)
    print("setup ran as", result, "tai runs as", os.getpid(), flush=True)

def report(*names):  # say which of these signals arrive, in wait_forever
    # blocked and taken with sigwaitinfo: a handler woken between two pause() calls, just
    # before the second, would print nothing until the next signal (which never comes)
    report.watched = {getattr(signal, name) for name in names}
    signal.pthread_sigmask(signal.SIG_BLOCK, report.watched)

report.watched = set()

def wait_forever():
    while True:
        if report.watched:
            number = signal.sigwaitinfo(report.watched).si_signo
            print("got", signal.Signals(number).name, flush=True)
        else:
            signal.pause()
"""


#: The driven processes of the running test (killed when it ends, passed or failed).
_DRIVEN: list[subprocess.Popen[str]] = []


@pytest.fixture(autouse=True)
def _end_driven_processes() -> Iterator[None]:
    """A failed test leaves no sandbox behind: killing a driver's first process ends its
    tree (the parent-death signals, then the PID namespace with its init)."""
    yield
    while _DRIVEN:
        process = _DRIVEN.pop()
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)


def drive(body: str) -> subprocess.Popen[str]:
    """The driver, then ``body`` (dedented), in a process of its own."""
    program = DRIVER + textwrap.dedent(body)
    process = subprocess.Popen(
        [sys.executable, "-c", program], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    _DRIVEN.append(process)
    return process


class Lines:
    """The lines a process prints, one at a time; waiting for one fails the test after
    ``limit`` seconds (a hang guard, not a timing check)."""

    def __init__(self, process: subprocess.Popen[str], limit: float = 20.0) -> None:
        assert process.stdout is not None
        self.process, self.limit, self.buffer = process, limit, b""
        self.fd = process.stdout.fileno()

    def __call__(self) -> str:
        import select

        while b"\n" not in self.buffer:
            if not select.select([self.fd], [], [], self.limit)[0]:
                pytest.fail(f"no line within {self.limit} s; so far {self.buffer!r}")
            chunk = os.read(self.fd, 4096)
            if not chunk:
                return self.buffer.decode()
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode() + "\n"

    def rest(self) -> list[str]:
        """The lines still to come, once the process has ended."""
        out = self.buffer.decode() + finish_output(self.process)
        return out.splitlines()


def finish_output(process: subprocess.Popen[str]) -> str:
    """What the process printed still, once it has ended (the time limit is a hang guard)."""
    out, err = process.communicate(timeout=30)
    assert "Traceback" not in err, err
    return out


def finish(process: subprocess.Popen[str]) -> list[str]:
    """The lines the process printed, once it has ended."""
    return finish_output(process).splitlines()


def test_tai_carries_on_as_pid_2_and_its_exit_status_comes_back() -> None:
    process = drive("start()\nsys.exit(7)")
    assert finish(process) == [
        "setup ran as 1 tai runs as 2",
        "on_exit in the first process: True status 7",
    ]
    assert process.returncode == 7


def test_a_fatal_signal_ends_the_first_process_alike() -> None:
    process = drive("start()\nos.kill(os.getpid(), signal.SIGTERM)\ntime.sleep(60)")
    assert finish(process)[-1] == f"on_exit in the first process: True status {-signal.SIGTERM}"
    assert process.returncode == -signal.SIGTERM


def test_tai_inside_is_confined_in_its_own_namespaces() -> None:
    process = drive("""
        start()
        with open("/proc/self/status") as status:
            fields = dict(line.split(":", 1) for line in status)
        for field in ("NoNewPrivs", "Seccomp", "CapEff", "CapPrm"):
            print(field, fields[field].strip())
        import ctypes
        print("dumpable", ctypes.CDLL(None, use_errno=True).prctl(3, 0, 0, 0, 0))
        print("ids", os.getuid(), os.getgid())
        print("blocked", sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])))
        for kind in ("user", "mnt", "pid", "uts", "ipc", "net"):
            print(kind, os.readlink(f"/proc/self/ns/{kind}"))
    """)
    lines = finish(process)[1:-1]
    assert lines[:7] == [
        "NoNewPrivs 1",
        "Seccomp 2",
        "CapEff 0000000000000000",
        "CapPrm 0000000000000000",
        "dumpable 0",
        f"ids {os.getuid()} {os.getgid()}",
        "blocked []",
    ]
    namespaces = dict(line.split(" ", 1) for line in lines[7:])
    ours = {kind: os.readlink(f"/proc/self/ns/{kind}") for kind in namespaces}
    assert {kind for kind in namespaces if namespaces[kind] != ours[kind]} == {
        "user", "mnt", "pid", "uts", "ipc"
    }  # fmt: skip


def test_signals_sent_to_the_first_process_reach_tai() -> None:
    forwarded = ("SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGUSR1", "SIGUSR2", "SIGWINCH")
    process = drive(f'start()\nreport(*{forwarded!r})\nprint("ready", flush=True)\nwait_forever()')
    line = Lines(process)
    assert line() == "setup ran as 1 tai runs as 2\n"
    assert line() == "ready\n"
    for name in forwarded:
        process.send_signal(getattr(signal, name))
        assert line() == f"got {name}\n"  # one each, none twice
    process.kill()
    process.communicate(timeout=30)


def test_a_signal_the_kernel_sends_is_not_forwarded() -> None:
    """Signals the kernel generates are not passed on: the terminal's Ctrl-C already
    reaches every process of the foreground group, tai included, and a forwarded copy
    would be a second interrupt. Here the kernel signals the first process deterministically
    (SIGIO-style, a pipe's owner told of data with SIGUSR1)."""
    import fcntl

    process = drive(
        'start()\nreport("SIGUSR1", "SIGUSR2")\nprint("ready", flush=True)\nwait_forever()'
    )
    line = Lines(process)
    assert line() == "setup ran as 1 tai runs as 2\n"
    assert line() == "ready\n"
    read_end, write_end = os.pipe()
    try:
        fcntl.fcntl(read_end, fcntl.F_SETOWN, process.pid)
        fcntl.fcntl(read_end, getattr(fcntl, "F_SETSIG", 10), signal.SIGUSR1)
        fcntl.fcntl(read_end, fcntl.F_SETFL, os.O_ASYNC | os.O_NONBLOCK)
        os.write(write_end, b"x")  # the kernel sends SIGUSR1 now, before write returns
        process.send_signal(signal.SIGUSR2)  # sent with kill: forwarded
        assert line() == "got SIGUSR2\n"
    finally:
        os.close(read_end)
        os.close(write_end)
        process.kill()
        process.communicate(timeout=30)


def test_a_signal_tai_sends_its_init_is_not_sent_back() -> None:
    """Where the kernel has no Landlock scopes (simulated here), tai can signal its init;
    init must not pass the signal back to tai (with scopes, the kernel refuses it)."""
    process = drive("""
        from tai_sandbox import _linux
        _linux.landlock_scope = lambda: None  # an older kernel
        start()
        report("SIGUSR1", "SIGUSR2")
        os.kill(1, signal.SIGUSR1)
        init = outer()[1]
        def settled():  # init has taken the signal and waits again: it sent it on or not
            with open(f"/proc/{init}/status") as status:
                fields = dict(line.split(":", 1) for line in status)
            pending = int(fields["SigPnd"], 16) | int(fields["ShdPnd"], 16)
            return fields["State"].split()[0] == "S" and not pending & 1 << signal.SIGUSR1 - 1
        while not settled():
            time.sleep(0.01)
        print("sent", flush=True)
        wait_forever()
    """)
    line = Lines(process)
    assert line() == "setup ran as 1 tai runs as 2\n"
    assert line() == "sent\n"
    process.send_signal(signal.SIGUSR2)  # behind tai's own signal at init, if that were sent on
    assert line() == "got SIGUSR2\n"
    process.kill()
    process.communicate(timeout=30)


def test_nothing_tai_started_outlives_it() -> None:
    marker = f"tai-test-{uuid.uuid4().hex}"
    process = drive(f"""
        start()
        import subprocess
        subprocess.Popen(["sleep", "1000", {marker!r}], start_new_session=True)
        print("started", flush=True)
    """)
    assert finish(process)[1] == "started"
    assert process.returncode == 0
    assert alive(marker) == []


def test_kill_9_of_the_first_process_ends_the_sandbox() -> None:
    process = drive("""
        start()
        tai, init = outer()
        print(tai, init, outer(init)[1], flush=True)
        signal.pause()
    """)
    line = Lines(process)
    line()
    tai, init, p1 = (int(word) for word in line().split())
    assert all(running(pid) for pid in (tai, init, p1))
    process.kill()
    process.communicate(timeout=30)
    wait_for(lambda: not any(running(pid) for pid in (tai, init, p1)), "the sandbox to end")


def test_init_killed_from_outside_ends_tai_with_the_signal_s_status() -> None:
    process = drive("""
        start()
        print(outer()[1], flush=True)
        signal.pause()
    """)
    line = Lines(process)
    line()
    os.kill(int(line()), signal.SIGKILL)
    assert line.rest() == [f"on_exit in the first process: True status {128 + signal.SIGKILL}"]
    assert process.returncode == 128 + signal.SIGKILL  # as a shell reports a killed command


def test_orphans_inside_are_reaped() -> None:
    process = drive("""
        start()
        read_end, write_end = os.pipe()
        if os.fork() == 0:
            if os.fork() == 0:
                os.write(write_end, str(outer()[0]).encode())
            os._exit(0)
        os.wait()
        orphan = int(os.read(read_end, 20))
        deadline = time.monotonic() + 10
        while os.path.exists(f"/proc/{orphan}") and time.monotonic() < deadline:
            time.sleep(0.02)
        print("orphan reaped:", not os.path.exists(f"/proc/{orphan}"))
    """)
    assert finish(process)[1] == "orphan reaped: True"


def test_a_failed_setup_leaves_the_first_process_as_it_was() -> None:
    process = drive("""
        def state():
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
            return sorted(mask), sorted(os.listdir("/proc/self/fd"))

        def broken():
            raise OSError("mount refused:\\nread-only")

        def dies():
            os._exit(3)

        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
        before = state()
        for setup in (broken, dies):
            try:
                enter(setup)
            except SandboxUnavailable as error:
                print("unavailable:", error)
            try:
                os.waitpid(-1, os.WNOHANG)
                print("a child is left")
            except ChildProcessError:
                pass
            print("as before:", state() == before, os.getpid() == first, flush=True)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
        start()
    """)
    assert finish(process) == [
        "unavailable: mount refused: read-only",
        "as before: True True",
        "unavailable: the sandbox's init ended",
        "as before: True True",
        "setup ran as 1 tai runs as 2",
        "on_exit in the first process: True status 0",
    ]
    assert process.returncode == 0


def test_the_sandbox_is_refused_where_it_cannot_be_entered_as_it_should() -> None:
    """Threads running (a fork would copy one of them only), another system, and user
    namespaces nested as deep as the kernel allows (32): each refused with its reason,
    the process as it was."""
    process = drive("""
        import threading
        from tai_sandbox import _linux

        def refused(why):
            try:
                enter(os.getpid)
            except SandboxUnavailable as error:
                print(why, "->", error, flush=True)

        stop = threading.Event()
        helper = threading.Thread(target=stop.wait)
        helper.start()
        refused("a thread")
        stop.set()
        helper.join()
        while os.path.exists(f"/proc/self/task/{helper.native_id}"):
            os.sched_yield()  # joined, but the kernel may not have reaped it yet

        real, sys.platform = sys.platform, "darwin"
        refused("another system")
        sys.platform = real

        uid, gid = os.getuid(), os.getgid()
        for _ in range(40):  # as deep as the kernel lets us, leaving it none for P1
            try:
                _linux.unshare(_linux.CLONE_NEWUSER)
            except OSError:
                break
            for name, value in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                                ("gid_map", f"{gid} {gid} 1")):
                with open(f"/proc/self/{name}", "w") as ids:
                    ids.write(value)
        refused("no namespace left")
    """)
    assert finish(process) == [
        "a thread -> 2 threads are running (a plugin started threads)",
        "another system -> namespaces exist only on Linux",
        "no namespace left -> [Errno 28] unshare: no namespace left (nested 32 deep already, or "
        "the system's limit is reached: /proc/sys/user/max_user_namespaces)",
    ]
    assert process.returncode == 0


def test_a_kernel_without_landlock_scopes_is_noted_and_tai_still_runs() -> None:
    process = drive("""
        from tai_sandbox import _linux, _process

        def old_kernel():
            raise OSError(95, "Landlock scopes need ABI 6, the kernel has 4")

        _linux.landlock_scope = old_kernel
        start()
        print("unscoped:", _process.UNSCOPED, flush=True)
    """)
    assert finish(process) == [
        "setup ran as 1 tai runs as 2",
        "unscoped: ['[Errno 95] Landlock scopes need ABI 6, the kernel has 4']",
        "on_exit in the first process: True status 0",
    ]
