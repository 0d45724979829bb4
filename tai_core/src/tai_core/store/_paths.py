"""Which paths an edit may touch, and the one name each file is known by.

Every path a block names goes through :meth:`PathGuard.resolve` before anything reads or
writes it. Resolution gives a file one key — its real path relative to the real working
directory, ``/``-separated — so that ``a/../b.txt``, ``./b.txt``, an absolute path and a
symbolic link inside the tree all name the same entry of the store, and a link that leads
outside is refused like a ``..`` that escapes.

Writes are then checked twice: against the protected patterns (what runs code later — all
of ``.git``, editor task files — and tai's own configuration and journal, at any depth, plus
the ``protected_paths`` of the configuration), and against the ``tai_path_policy`` hook, whose
first answer wins, so the sandbox plugin can refuse more. A refusal is a
:class:`~tai_core.store.PathError` whose message says why.

Patterns follow ``.gitignore``: a pattern without ``/`` matches a name at any depth, one
with ``/`` (or a leading ``/``) is anchored at the working directory, ``*`` and ``?`` stay
inside one path segment, ``**`` spans segments, and a pattern that matches a directory
protects everything under it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from tai_core._printable import printable
from tai_core.patterns import glob_to_regex
from tai_core.store._errors import PathError

if TYPE_CHECKING:
    from tai_core.plugins import PluginHost

#: A ``tai_path_policy`` caller: ``(path, operation) -> (allowed, reason)`` or ``None``.
PathPolicy = Callable[[str, str], "tuple[bool, str] | None"]

#: The directory of the flush journal (see :mod:`tai_core.store._journal`).
JOURNAL_DIR = ".tai-journal"

#: The longest file name (one path segment) and whole path, in bytes, that POSIX file
#: systems take (``NAME_MAX``, ``PATH_MAX`` less the terminating NUL). A longer name is
#: refused with a sentence before the operating system's ``ENAMETOOLONG`` can surface.
NAME_MAX = 255
PATH_MAX = 4095

#: How much of an unusable path a message shows: enough to find it, one line whatever it is.
_SHOWN = 80

#: Built-in protected patterns and why each is protected.
BUILTIN_PROTECTED: tuple[tuple[str, str], ...] = (
    (".git", "git's directory (hooks, configuration, …) runs code when git runs later"),
    (".vscode", "editor task and launch files run code later"),
    ("tai.toml", "tai's configuration is not edited by a model"),
    (".tai.toml", "tai's configuration is not edited by a model"),
    (JOURNAL_DIR, "tai's flush journal is tai's alone"),
)


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A regular expression for one ``.gitignore``-style ``pattern`` (see the module doc)."""
    text = pattern.strip().replace("\\", "/").rstrip("/")
    anchored = "/" in text
    text = text.lstrip("/")
    return re.compile(("" if anchored else "(?:.*/)?") + glob_to_regex(text) + "(?:/.*)?")


@attrs.frozen
class _Rule:
    pattern: str
    reason: str
    regex: re.Pattern[str]


def _rules(patterns: Iterable[tuple[str, str]]) -> tuple[_Rule, ...]:
    return tuple(
        _Rule(pattern, reason, _glob_regex(pattern)) for pattern, reason in patterns if pattern
    )


@attrs.frozen
class PathGuard:
    """The working directory, its protected patterns and the path policy of the run."""

    #: The working directory, fully resolved.
    root: Path
    rules: tuple[_Rule, ...] = ()
    policy: PathPolicy | None = attrs.field(default=None, eq=False)

    @classmethod
    def create(
        cls,
        root: Path | str,
        protected: Iterable[str] = (),
        policy: PathPolicy | None = None,
    ) -> PathGuard:
        """A guard for ``root`` with the built-in patterns plus ``protected`` (from the
        configuration's ``protected_paths``) and an optional policy caller."""
        configured = [
            (pattern, "listed in protected_paths of the configuration") for pattern in protected
        ]
        return cls(
            root=Path(os.path.realpath(root)),
            rules=_rules([*BUILTIN_PROTECTED, *configured]),
            policy=policy,
        )

    def resolve(self, path: str) -> str:
        """The key of ``path``: its real path relative to the working directory.

        Raises :class:`PathError` for an empty path, a path that leaves the working directory
        (``..``, an absolute path elsewhere, a symbolic link leading outside), the working
        directory itself, and a path no file system takes (a NUL byte, a name over
        :data:`NAME_MAX` or a path over :data:`PATH_MAX` bytes).
        """
        if not path or not path.strip():
            raise PathError("empty file path")
        raw = path.strip()
        root = str(self.root)
        _check_name(raw)
        joined = os.path.normpath(self.root / raw)
        if len(os.fsencode(joined)) > PATH_MAX:
            raise PathError(
                f"{shown_path(raw)}: path too long ({len(os.fsencode(joined))} bytes with the "
                f"working directory; the limit is {PATH_MAX})"
            )
        if not _inside(joined, root):
            raise PathError(f"{shown_path(raw)}: escapes the working directory {root}")
        real = os.path.realpath(joined)
        if not _inside(real, root):
            raise PathError(
                f"{shown_path(raw)}: resolves to {shown_path(real)}, outside the working directory "
                "(through a symbolic link)"
            )
        if real == root:
            raise PathError(f"{shown_path(raw)}: names the working directory itself, not a file")
        return Path(os.path.relpath(real, root)).as_posix()

    def check(self, key: str, operation: str) -> None:
        """Refuse (raise :class:`PathError`) a write of kind ``operation`` to ``key``.

        ``operation`` is ``"write"``, ``"create"``, ``"delete"`` or ``"rename"``, as the
        ``tai_path_policy`` hook receives it.
        """
        for rule in self.rules:
            if rule.regex.fullmatch(key):
                raise PathError(f"{key}: protected (pattern {rule.pattern!r}: {rule.reason})")
        if self.policy is not None:
            answer = self.policy(key, operation)
            if answer is not None and not answer[0]:
                raise PathError(f"{key}: {operation} refused by the path policy: {answer[1]}")


def shown_path(path: str) -> str:
    """``path`` as a message shows it: printable (``repr`` when it holds control characters
    or undecodable bytes) and cut to a readable length."""
    text = printable(path)
    return text if len(text) <= _SHOWN else f"{text[: _SHOWN - 20]}…{text[-19:]}"


def _check_name(path: str) -> None:
    """Refuse a path no file system takes: a NUL byte, characters that have no bytes, a
    segment longer than :data:`NAME_MAX` bytes (``PATH_MAX`` is checked once joined)."""
    if "\0" in path:
        raise PathError(f"{shown_path(path)}: a file name cannot contain a NUL byte")
    try:
        data = os.fsencode(path)
    except UnicodeError:
        raise PathError(
            f"{shown_path(path)}: not a valid file name (unencodable characters)"
        ) from None
    longest = max(len(part) for part in data.split(b"/"))
    if longest > NAME_MAX:
        raise PathError(
            f"{shown_path(path)}: file name too long ({longest} bytes; the limit is {NAME_MAX})"
        )


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def host_policy(host: PluginHost) -> PathPolicy:
    """A policy caller asking the ``tai_path_policy`` hook of a plugin host."""
    hook = host.pm.hook.tai_path_policy

    def ask(path: str, operation: str) -> tuple[bool, str] | None:
        try:
            return hook(path=path, operation=operation)
        except Exception as error:  # noqa: BLE001 - a policy that cannot answer refuses
            return False, str(error)  # a plugin's failure names it (PluginHookError)

    return ask
