"""Where things are, and which paths are precious: what the rules judge a path by.

A path reaches these functions already expanded (``_words``), possibly with run-time parts
(:data:`~tai_sandbox._words.DYNAMIC`) and relative to several possible directories (a
script that ``cd``s). Every possibility counts: a path is precious when any of its values
is, and a path only known when the command runs is precious, because nothing can be
known about it.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from typing import NoReturn, Protocol

from tai_sandbox._words import DYNAMIC, Scope

_SYSTEM_DIRS = frozenset(
    {"bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "media", "mnt",
     "opt", "proc", "root", "run", "sbin", "snap", "srv", "sys", "usr", "var"}
)  # fmt: skip
_SAFE_DEVICES = frozenset(
    {"null", "zero", "full", "random", "urandom", "tty", "stdin", "stdout", "stderr", "ptmx"}
)
_SAFE_DEVICE_DIRS = ("fd/", "pts/", "shm/", "mqueue/")


class Checker(Protocol):
    """What the rules need from the analysis that calls them."""

    cwd: str

    def refuse(self, reason: str) -> NoReturn:
        """Stop: the command is refused for ``reason``."""
        ...

    def run(self, argv: Sequence[str], scope: Scope) -> None:
        """Check a command another one runs (a wrapper's, ``find -exec``'s)."""
        ...

    def script(self, text: str, scope: Scope, positional: tuple[str, ...] | None) -> None:
        """Check shell code another command runs (``sh -c``, ``eval``)."""
        ...

    def protection(self, path: str, scope: Scope) -> str | None:
        """Why writing ``path`` is refused (a protected path), or ``None``."""
        ...


def shown(value: str) -> str:
    """``value`` for a message, with its run-time parts as ``…``."""
    return value.replace(DYNAMIC, "…") or "''"


# -- where things are -------------------------------------------------------------------


def absolute(path: str, base: str | None) -> str | None:
    """``path`` made absolute against ``base`` (``None``: unknown) and normalized."""
    if path.startswith("/"):
        return posixpath.normpath("/" + path.lstrip("/"))
    return None if base is None else posixpath.normpath(posixpath.join(base, path))


def within(path: str, directory: str) -> bool:
    """True when ``path`` is ``directory`` or inside it."""
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def precious(full: str, cwd: str, home: str) -> str | None:
    """Why deleting everything at ``full`` recursively is destructive."""
    head, last = posixpath.split(full)
    everything = bool(last) and "*" in last and set(last) <= set("*?.")
    target = head if everything else full
    prefix = "everything in " if everything else ""
    parts = [part for part in target.split("/") if part]
    if not parts:
        return f"{prefix}the root directory"
    if within(cwd, target):
        return prefix + ("the working directory" if target == cwd else f"{target}, above it")
    if within(home, target):
        return f"{prefix}the home directory" + ("" if target == home else f" ({target})")
    in_home = home.strip("/") != "" and within(target, home)  # /root/x when HOME=/root
    if not in_home and (len(parts) == 1 or (len(parts) == 2 and parts[0] in _SYSTEM_DIRS)):
        return f"{prefix}the system directory {target}"
    if parts[-1] == ".git":
        return f"{prefix}a repository's history ({target})"
    return None


def _judged(path: str, scope: Scope, danger: Callable[[str], str | None]) -> str | None:
    """``danger`` of every absolute path ``path`` can stand for in ``scope`` (one per
    possible working directory); a path or directory only known at run time is a danger
    in itself."""
    if DYNAMIC in path:
        return f"{shown(path)}, a path only known when the command runs"
    for base in scope.dirs:
        full = absolute(path, base)
        if full is None:
            return f"{path}, relative to a directory only known when the command runs"
        reason = danger(full)
        if reason:
            return reason
    return None


def deletion_danger(path: str, scope: Scope, cwd: str) -> str | None:
    """Why deleting ``path`` recursively is destructive, or ``None``."""
    if not path:
        return None
    return _judged(path, scope, lambda full: precious(full, cwd, scope.home))


def system_danger(path: str, scope: Scope, cwd: str) -> str | None:
    """Why changing owners or modes under ``path`` recursively is destructive."""

    def danger(full: str) -> str | None:
        if full in ("/", scope.home) or (within(cwd, full) and full != cwd):
            return f"{full} (the root, the home or a parent of the working directory)"
        inside = within(full, cwd) or within(full, scope.home)
        if not inside and full.split("/")[1] in _SYSTEM_DIRS:
            return f"the system path {full}"
        return None

    return _judged(path, scope, danger)


def raw_device(path: str, scope: Scope) -> str | None:
    """The device node ``path`` is in one of the directories of ``scope`` when writing to
    it destroys data (disks, memory), or ``None`` (``//dev/sda`` and ``sda`` after
    ``cd /dev`` are ``/dev/sda``; a relative path in an unknown directory is not judged)."""
    for base in scope.dirs:
        full = absolute(path, base)
        name = full.removeprefix("/dev/") if full and full.startswith("/dev/") else None
        if name and name not in _SAFE_DEVICES and not name.startswith(_SAFE_DEVICE_DIRS):
            return full
    return None


def check_written(checker: Checker, path: str, scope: Scope, what: str) -> None:
    """Refuse writing ``path`` when it is a raw device or a protected path."""
    device = raw_device(path, scope)
    if device:
        checker.refuse(f"{what} writes to the device {device}, destroying what is on it")
    if DYNAMIC not in path:
        reason = checker.protection(path, scope)
        if reason:
            checker.refuse(f"{what} would change a protected path: {reason}")
