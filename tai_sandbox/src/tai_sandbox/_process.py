"""Entering the namespaces without giving up the process the user's shell waits for.

Four processes:

* **P0**, the tai the user started, forks P1 and, once the sandbox is ready, only forwards
  signals to P2 and passes the exit status back (re-raising a fatal signal on itself, so
  the shell sees what it would have seen). Nothing changes in P0 until the sandbox reports
  ready, so on a failure P0 is exactly as before (and the caller refuses to go on: the
  sandbox fails closed). When tai has ended — and with it every process of the sandbox —
  P0 runs the caller's ``on_exit`` outside the sandbox (the sweep for protected paths
  created inside, see ``_sweep``).
* **P1** unshares the user, mount, PID, UTS and IPC namespaces (the network is kept: tai
  talks to the model from inside; see ``_netless`` for blocks without it), maps its own
  uid and gid, forks P2 and waits for it.
* **P2** is PID 1 of the new PID namespace: it builds the filesystem view, forks P3, then
  reaps orphans and forwards signals until P3 ends. PID 1 ignores every signal it has no
  handler for, so tai itself must not be PID 1; and when P2 exits, the kernel ends every
  process left in the namespace, so nothing a model started outlives the run.
* **P3** waits until P2 has told P0 the sandbox is ready (so a P2 killed in between leaves
  no tai running that P0 believes never started), drops every capability, sets
  ``no_new_privs``, installs the seccomp filter (no set-uid files, ``_seccomp``), confines
  itself with Landlock scopes where the kernel has them (no abstract unix sockets or
  signals outside: ``_linux.landlock_scope``) and returns
  from :func:`enter`: it is tai, carrying on with the plugins it already loaded.

*Kill means stop.* P1 and P2 each ask the kernel for ``SIGKILL`` when their parent dies
(``PR_SET_PDEATHSIG``): a ``kill -9`` of P0 kills P1, which kills P2, which ends every
process of the namespace. That is why P1 stays alive: a death signal is tied to the
parent, and an orphan adopted by another process would lose it. ``SIGTERM`` and ``SIGHUP``
sent to P0 are forwarded; tai dies of them, and the namespace with it.

*Memory stays private.* P2 and P3 are not dumpable: no process inside, though of the same
user, can read their memory through ``/proc`` or ``ptrace`` (the journal key tai holds,
``tai_core.store``, stays tai's).

Why fork and not re-execute: a re-executed tai pays Python's start-up and plugin loading
again (about 120 ms); forking the loaded process costs a few milliseconds. Forking needs a
single-threaded process (``unshare(CLONE_NEWUSER)`` refuses multi-threaded callers, and a
forked copy of a threaded process may deadlock), which tai is while its command line is
read. Signals sent with ``kill`` are forwarded; signals the terminal generates (Ctrl-C)
already reach every process of the foreground group, so they are not forwarded twice.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, TypeVar

from tai_sandbox import _linux, _seccomp

T = TypeVar("T")

#: Signals forwarded to tai when sent to an outer process with ``kill``.
FORWARDED = frozenset(
    {
        signal.SIGHUP,
        signal.SIGINT,
        signal.SIGQUIT,
        signal.SIGTERM,
        signal.SIGUSR1,
        signal.SIGUSR2,
        signal.SIGWINCH,
    }
)
_WATCHED = FORWARDED | {signal.SIGCHLD}


#: Why Landlock scopes could not be set, when they could not (an older kernel).
UNSCOPED: list[str] = []


class SandboxUnavailable(Exception):
    """The sandbox could not be entered; the calling process is unchanged."""


def _threads() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return 1


def _send(fd: int, message: str) -> None:
    os.write(fd, (message.replace("\n", " ") + "\n").encode())


def _supervise(child: int, reap_all: bool, forward_to: int | None = None) -> int:
    """Forward signals to ``forward_to`` (default ``child``) until ``child`` ends (reaping
    any orphan when ``reap_all``); its wait status."""
    target = child if forward_to is None else forward_to
    while True:
        info = signal.sigwaitinfo(_WATCHED)
        if info.si_signo != signal.SIGCHLD:
            if info.si_code <= 0 and info.si_pid not in (child, target):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(target, info.si_signo)
            continue
        while True:
            try:
                pid, status = os.waitpid(-1 if reap_all else child, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == child:
                return status
            if pid == 0:
                break


def _fail(fd: int, error: BaseException) -> NoReturn:
    _send(fd, f"fail {error}")
    os._exit(1)


def _p1(report: int, ids: tuple[int, int, int], setup: Callable[[], T]) -> NoReturn:
    parent, uid, gid = ids
    try:
        _linux.set_parent_death_signal(signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)  # P0 died before the death signal was set
        _linux.unshare(
            _linux.CLONE_NEWUSER
            | _linux.CLONE_NEWNS
            | _linux.CLONE_NEWPID
            | _linux.CLONE_NEWUTS
            | _linux.CLONE_NEWIPC
        )
        for name, value in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1")):
            Path(f"/proc/self/{name}").write_text(value)
        Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
        p2 = os.fork()
    except OSError as error:
        _fail(report, error)
    if p2 == 0:
        _p2(report, setup)
    _send(report, f"pid {p2}")
    os.close(report)
    _, status = os.waitpid(p2, 0)
    code = os.waitstatus_to_exitcode(status)
    os._exit(128 - code if code < 0 else code)  # init killed: a shell's 128 + signal


def _p2(report: int, setup: Callable[[], T]) -> NoReturn:
    try:
        _linux.set_parent_death_signal(signal.SIGKILL)
        result = setup()
        _linux.set_not_dumpable()
        go, told = os.pipe()
        p3 = os.fork()
    except Exception as error:  # noqa: BLE001 - any failure: the sandbox is unavailable
        _fail(report, error)
    if p3 == 0:
        os.close(told)
        if os.read(go, 1) != b"1":  # P2 ended before P0 was told: nothing of tai may run
            os._exit(1)
        os.close(go)
        raise _Worker(result)
    os.close(go)
    _send(report, "ready")
    os.write(told, b"1")
    os.close(told)
    status = _supervise(p3, reap_all=True)
    _send(report, f"status {os.waitstatus_to_exitcode(status)}")
    os._exit(0)


class _Worker(BaseException):
    """Raised in P3 to unwind out of P1's and P2's frames back into :func:`enter`."""

    def __init__(self, result: object) -> None:
        super().__init__()
        self.result = result


def _exit_like(code: int) -> NoReturn:
    """End P0 as tai ended: with its exit code, or killed by the same signal."""
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {-code})
        os.kill(os.getpid(), -code)
        code = 128 - code
    os._exit(code)


def enter(setup: Callable[[], T], on_exit: Callable[[int], None] | None = None) -> T:
    """Run the rest of this process in new namespaces; ``setup`` builds them from inside.

    ``setup`` runs as PID 1 of the new PID namespace, in the new mount namespace with full
    capabilities there; its result is returned in the process that carries on as tai. The
    calling process never returns on success: when tai and every process of the sandbox
    have ended, it calls ``on_exit`` with tai's exit status and exits with it. On failure
    it raises :class:`SandboxUnavailable` and is unchanged.
    """
    if sys.platform != "linux":
        raise SandboxUnavailable("namespaces exist only on Linux")
    threads = _threads()
    if threads > 1:
        raise SandboxUnavailable(f"{threads} threads are running (a plugin started threads)")
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    ids = (os.getpid(), os.getuid(), os.getgid())
    read_end, write_end = os.pipe()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _WATCHED)
    try:
        p1 = os.fork()
        if p1 == 0:
            os.close(read_end)
            _p1(write_end, ids, setup)
    except _Worker as worker:
        os.close(write_end)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        _linux.set_no_new_privs()
        _linux.drop_capabilities()
        _seccomp.install()
        try:
            _linux.landlock_scope()
        except OSError as error:
            UNSCOPED.append(str(error))
        return worker.result  # type: ignore[return-value]
    os.close(write_end)
    with os.fdopen(read_end, "r") as reports:
        said: dict[str, str] = {}
        while "fail" not in said and not {"pid", "ready"} <= said.keys():
            word, _, rest = reports.readline().partition(" ")
            if not word:
                break
            said[word.strip()] = rest.strip()
        if "ready" not in said:
            os.waitpid(p1, 0)
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            raise SandboxUnavailable(said.get("fail", "the sandbox's init ended"))
        status = _supervise(p1, reap_all=False, forward_to=int(said["pid"]))
        last = reports.readline().split()
    ended = int(last[1]) if last[:1] == ["status"] else os.waitstatus_to_exitcode(status)
    if on_exit is not None:
        on_exit(ended)
    _exit_like(ended)
