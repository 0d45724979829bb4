"""Programs without network: a network namespace with loopback only, per block.

tai itself needs the network inside the sandbox (it talks to the model from there), so the
sandbox keeps it; with ``-no-network`` (``sandbox_network = false``) the programs blocks
start — shell commands, ``go test`` — run in a network namespace of their own instead,
where only ``lo`` exists. Creating one needs no privilege: a nested user namespace gives
the capabilities for it, which are dropped again before the program starts, and the mounts
stay as locked as they were. When tai runs as root, root is left unmapped there (mapping
root at all takes ``CAP_SETFCAP``, which the sandbox dropped): the program runs as the
overflow user ``nobody`` by name, with root's access to files unchanged.

The wrapper is this file run by the interpreter in isolated mode without ``site``
(``python -I -S _netless.py PROGRAM ARGS…``), loading ``_linux`` by path: a few
milliseconds, no import of tai, no ``preexec_fn`` in a threaded process.
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import socket
import struct
import sys
from pathlib import Path
from types import ModuleType

_SIOCSIFFLAGS = 0x8914
_IFF_UP = 0x1


def wrap(argv: list[str]) -> list[str]:
    """``argv`` run through this wrapper."""
    return [sys.executable, "-I", "-S", __file__, *argv]


def _linux() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "_tai_linux", Path(__file__).with_name("_linux.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        fcntl.ioctl(sock, _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", _IFF_UP))


def main(argv: list[str]) -> int:
    """Enter a network namespace with loopback only, then become ``argv``."""
    if not argv:
        print("usage: _netless.py PROGRAM [ARGS…]", file=sys.stderr)
        return 2
    linux = _linux()
    uid, gid = os.getuid(), os.getgid()
    try:
        linux.unshare(linux.CLONE_NEWUSER | linux.CLONE_NEWNET)
        if uid and gid:
            maps = (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                    ("gid_map", f"{gid} {gid} 1"))  # fmt: skip
            for name, value in maps:
                Path(f"/proc/self/{name}").write_text(value)
        _loopback_up()
        linux.drop_capabilities()
    except OSError as error:
        print(f"tai: the network cannot be cut for this command: {error}", file=sys.stderr)
        return 126
    try:
        os.execvp(argv[0], argv)
    except OSError as error:
        print(f"tai: {argv[0]}: {error.strerror}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
