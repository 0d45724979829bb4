"""The Linux system calls the sandbox needs, through ctypes (Python 3.11 has no
``os.unshare``): ``unshare``, ``mount``, ``prctl``, ``capset`` and ``seccomp``. Each raises
``OSError`` with the errno and what was attempted, so a failure reads as one clear line.
"""

from __future__ import annotations

import ctypes
import errno as errno_codes
import os
import struct
from functools import cache
from pathlib import Path

CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_MOVE = 8192
MS_REC = 16384
MS_PRIVATE = 1 << 18

#: ``statvfs`` flag -> mount flag, for the options a remount must keep: the kernel locks
#: them on mounts inherited from a more privileged namespace, and a remount that drops one
#: fails with EPERM.
_KEPT_FLAGS: dict[int, int] = {
    os.ST_NOSUID: MS_NOSUID,
    os.ST_NODEV: MS_NODEV,
    os.ST_NOEXEC: MS_NOEXEC,
    os.ST_NOATIME: 1024,
    os.ST_NODIRATIME: 2048,
    os.ST_RELATIME: 1 << 21,
}


_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_SYS_CAPSET = 126 if os.uname().machine == "x86_64" else 91
_CAPABILITY_VERSION_3 = 0x20080522


@cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def unshare(flags: int) -> None:
    """Move the calling process into new namespaces (``unshare(2)``)."""
    try:
        _check(_libc().unshare(flags), "unshare")
    except OSError as error:
        if error.errno == errno_codes.ENOSPC:  # the kernel's word for "no more namespaces"
            raise OSError(
                error.errno,
                "unshare: no namespace left (nested 32 deep already, or the system's limit "
                "is reached: /proc/sys/user/max_user_namespaces)",
            ) from None
        raise


def mount(
    source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None
) -> None:
    """``mount(2)``; ``None`` for an argument the call does not use."""
    encoded = [value.encode() if value is not None else None for value in (source, fstype, data)]
    _check(
        _libc().mount(encoded[0], target.encode(), encoded[1], flags, encoded[2]),
        f"mount {target}",
    )


def remount(target: str, flags: int) -> None:
    """Remount the bind mount at ``target`` with ``flags`` added, keeping the options it
    must keep."""
    current = os.statvfs(target).f_flag
    kept = sum(flag for st_flag, flag in _KEPT_FLAGS.items() if current & st_flag)
    mount(None, target, None, MS_REMOUNT | MS_BIND | flags | kept)


def remount_readonly(target: str) -> None:
    """Make the mount at ``target`` read-only, keeping the options it must keep."""
    remount(target, MS_RDONLY)


def set_parent_death_signal(signum: int) -> None:
    """Have the kernel send ``signum`` to this process when its parent ends."""
    _check(_libc().prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0), "prctl pdeathsig")


def set_not_dumpable() -> None:
    """No other process of the same user may read this one's memory or trace it (and it
    leaves no core dump): what it holds in memory stays its own."""
    _check(_libc().prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0), "prctl dumpable")


def set_no_new_privs() -> None:
    """No ``execve`` of this process or its children can gain privileges (set-uid bits,
    file capabilities)."""
    _check(_libc().prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl no_new_privs")


def drop_capabilities() -> None:
    """Drop every capability, also from the bounding set, so neither this process nor a
    program it runs (not even as uid 0) holds one: the mounts cannot be undone."""
    last = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    libc = _libc()
    for capability in range(last + 1):
        _check(libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0), "prctl capbset_drop")
    _check(libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "prctl ambient")
    header = ctypes.create_string_buffer(struct.pack("Ii", _CAPABILITY_VERSION_3, 0))
    data = ctypes.create_string_buffer(bytes(24))  # two empty {effective, permitted, inheritable}
    libc.syscall.restype = ctypes.c_long
    _check(libc.syscall(_SYS_CAPSET, header, data), "capset")


_SYS_LANDLOCK_CREATE_RULESET = 444
_SYS_LANDLOCK_RESTRICT_SELF = 446
_LANDLOCK_CREATE_RULESET_VERSION = 1
_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET = 1
_LANDLOCK_SCOPE_SIGNAL = 2
#: The first Landlock ABI with scopes (Linux 6.12).
_LANDLOCK_SCOPES_ABI = 6


def landlock_scope() -> int:
    """Confine this process and its children with Landlock scopes: no connecting to
    abstract unix sockets made outside (they are per network namespace, which the sandbox
    shares with the host), no signals to processes outside. Needs ``no_new_privs``; the
    Landlock ABI in force, or ``OSError`` when the kernel has no scopes (ABI < 6)."""
    libc = _libc()
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, None, 0, _LANDLOCK_CREATE_RULESET_VERSION)
    if abi < _LANDLOCK_SCOPES_ABI:
        raise OSError(ctypes.get_errno() or 95, f"Landlock scopes need ABI 6, the kernel has {abi}")
    attr = ctypes.create_string_buffer(
        struct.pack("QQQ", 0, 0, _LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | _LANDLOCK_SCOPE_SIGNAL)
    )
    fd = libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, attr, len(attr.raw), 0)
    if fd < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"landlock_create_ruleset: {os.strerror(errno)}")
    try:
        _check(libc.syscall(_SYS_LANDLOCK_RESTRICT_SELF, fd, 0), "landlock_restrict_self")
    finally:
        os.close(fd)
    return abi
