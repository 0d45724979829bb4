"""The files tai keeps for its next start, in the launch directory of its cache.

A start is faster for what an earlier one worked out and kept: the answers of ``tai
--help`` and ``tai plugins`` (``tai_core.cli._launch``), the code and regular-expression
programs a start compiles (``tai_core.cli._kept_code``), the directories ``go env`` names
for the sandbox (``tai_sandbox``). What is kept there is acted on later — printed, run,
made writable — outside the sandbox, so such a file must be tai's own:

* the directory (:data:`LAUNCH_DIR`) is mounted read-only inside the sandbox, so nothing
  a model runs can write one;
* a file is read only when the user owns it and no one else may write it (as ssh treats
  its keys), so another account cannot plant one either;
* one is written whole, a temporary file renamed over it, so a reader never sees half of
  one, and mode 0600 (``tai_core._atomic``).

A file that is missing, foreign or unreadable reads as ``None``: keeping is an
optimisation, never a reason to fail. Each is named per interpreter (one installation of
tai does not overwrite another's) and, like the paths, computed with ``os.path``: the launch
reads them before ``pathlib`` is imported.
"""

from __future__ import annotations

import os
import sys

from tai_core.config._paths import LAUNCH_DIR, user_cache_dir_str


def launch_file(name: str, suffix: str) -> str:
    """The path of the kept file ``name`` of this interpreter (``NAME-TAG.SUFFIX``)."""
    from zlib import crc32

    tag = crc32(sys.executable.encode("utf-8", "surrogateescape"))
    return os.path.join(user_cache_dir_str(), LAUNCH_DIR, f"{name}-{tag:08x}.{suffix}")


def read_launch_file(path: str) -> bytes | None:
    """The content of the kept file at ``path``, or ``None`` when it is missing, cannot be
    read, is a symbolic link, or is not the user's alone (owned by another, or writable by
    group or others)."""
    try:  # never through a link: the file itself must be the one the user alone wrote
        with open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb") as file:
            info = os.fstat(file.fileno())
            if info.st_uid != os.getuid() or info.st_mode & 0o022:
                return None
            return file.read()
    except (OSError, ValueError):
        return None


def write_launch_file(path: str, data: bytes) -> None:
    """Replace the kept file at ``path`` by ``data``, whole and readable by the user only;
    raises :class:`OSError` when it cannot (inside the sandbox, for one)."""
    from pathlib import Path

    from tai_core._atomic import write_bytes_atomically

    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    write_bytes_atomically(Path(path), data)
