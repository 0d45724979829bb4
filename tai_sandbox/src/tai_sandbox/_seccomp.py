"""A seccomp filter: nothing inside the sandbox makes a set-uid or set-gid file.

A set-uid copy of a shell made in the working directory would outlive the run and give
whoever runs it later the rights of its owner — root, when tai runs as root. A mount
option cannot stop it (``nosuid`` only ignores the bit *inside* the mount; outside the
sandbox the same file is seen through the host's mount), and a sweep after the run would
have to ``stat`` every file. So the bit is refused where it is set: the filter answers
``EPERM`` to ``chmod``, ``fchmod``, ``fchmodat``, ``fchmodat2``, ``mknod``, ``mknodat``,
``creat`` and ``open``/``openat`` with ``O_CREAT``/``O_TMPFILE`` whenever the mode asks for
``S_ISUID`` or ``S_ISGID``, ``ENOSYS`` to ``openat2`` (its mode is behind a pointer a
filter cannot read; C libraries fall back to ``openat``) and ``EPERM`` to
``io_uring_setup`` (io_uring opens files without any system call a filter sees; programs
fall back to ordinary calls, as under Docker's default profile). System calls of another ABI (32-bit
or x32 on x86-64) are refused, since their numbers differ and would slip past the checks.

The filter is a classic BPF program built here (about 25 instructions), installed with
``prctl(PR_SET_SECCOMP)`` after ``no_new_privs``; it is inherited by every process tai
starts and cannot be removed.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct

from tai_sandbox._linux import _check, _libc

_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_LD_ABS_W = 0x20
_JEQ = 0x15
_JGE = 0x35
_JSET = 0x45
_RET = 0x06

#: ``seccomp_data``: ``nr`` at 0, ``arch`` at 4, ``args[i]`` at 16 + 8 i (low word first).
_NR, _ARCH = 0, 4
_MODE_BITS = 0o6000
_CREATES = 0o100 | 0o20000000  # O_CREAT | __O_TMPFILE

#: machine -> (audit arch, system call numbers, whether x32 numbers must be refused).
_TABLES: dict[str, tuple[int, dict[str, int], bool]] = {
    "x86_64": (
        0xC000003E,
        {"chmod": 90, "fchmod": 91, "fchmodat": 268, "fchmodat2": 452, "creat": 85,
         "mknod": 133, "mknodat": 259, "open": 2, "openat": 257, "openat2": 437,
         "io_uring_setup": 425},
        True,
    ),
    "aarch64": (
        0xC00000B7,
        {"fchmod": 52, "fchmodat": 53, "fchmodat2": 452, "mknodat": 33, "openat": 56,
         "openat2": 437, "io_uring_setup": 425},
        False,
    ),
}  # fmt: skip

#: Which argument holds the mode of each checked call (``open``/``openat``: only with
#: the creating flags, which are in the argument before it).
_MODE_ARGUMENT = {"chmod": 1, "fchmod": 1, "fchmodat": 2, "fchmodat2": 2, "creat": 1,
                  "mknod": 1, "mknodat": 2, "open": 2, "openat": 3}  # fmt: skip


#: Calls refused whatever their arguments, and how.
_REFUSED = {"openat2": "enosys", "io_uring_setup": "eperm"}


def _arg(index: int) -> int:
    return 16 + 8 * index


def program(machine: str) -> list[tuple[int, int, int, int]]:
    """The filter for ``machine`` as ``(code, jt, jf, k)`` instructions; ``KeyError`` for
    a machine without a table."""
    arch, numbers, x32 = _TABLES[machine]
    # Assembled with labels, then resolved into the relative jumps BPF uses.
    code: list[tuple[int, str | int, str | int, int]] = [
        (_LD_ABS_W, 0, 0, _ARCH),
        (_JEQ, 0, "eperm", arch),
        (_LD_ABS_W, 0, 0, _NR),
    ]
    if x32:
        code.append((_JGE, "eperm", 0, 0x40000000))
    for name, number in numbers.items():
        target = _REFUSED.get(name, f"check-{name}")
        code.append((_JEQ, target, 0, number))
    code.append((_RET, 0, 0, _RET_ALLOW))
    labels: dict[str, int] = {}
    for name in numbers:
        if name in _REFUSED:
            continue
        labels[f"check-{name}"] = len(code)
        mode = _MODE_ARGUMENT[name]
        if name in ("open", "openat"):
            code.append((_LD_ABS_W, 0, 0, _arg(mode - 1)))
            code.append((_JSET, 0, "allow", _CREATES))
        code.append((_LD_ABS_W, 0, 0, _arg(mode)))
        code.append((_JSET, "eperm", "allow", _MODE_BITS))
    for label, value in (
        ("allow", _RET_ALLOW),
        ("eperm", _RET_ERRNO | errno.EPERM),
        ("enosys", _RET_ERRNO | errno.ENOSYS),
    ):
        labels[label] = len(code)
        code.append((_RET, 0, 0, value))

    def offset(at: int, target: str | int) -> int:
        return target if isinstance(target, int) else labels[target] - at - 1

    return [(op, offset(i, jt), offset(i, jf), k) for i, (op, jt, jf, k) in enumerate(code)]


def install() -> None:
    """Install the filter on this process (and so on everything it starts); needs
    ``no_new_privs``. ``OSError`` when the kernel refuses or the machine has no table."""
    machine = os.uname().machine
    if machine not in _TABLES:
        raise OSError(errno.ENOSYS, f"seccomp: no system call table for {machine}")
    instructions = program(machine)
    data = b"".join(struct.pack("HBBI", *instruction) for instruction in instructions)
    buffer = ctypes.create_string_buffer(data)
    fprog = struct.pack("HxxxxxxP", len(instructions), ctypes.addressof(buffer))
    fprog_buffer = ctypes.create_string_buffer(fprog)
    _check(
        _libc().prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, fprog_buffer, 0, 0),
        "prctl seccomp",
    )
