"""Go's cache directories as ``go env`` names them, asked once and kept for later starts.

Every sandboxed start needs ``GOCACHE``, ``GOMODCACHE`` and ``GOPATH`` (their layers are
overlaid: ``paths``), and when the environment does not set them only ``go env`` knows
them — Go's own defaults, its environment file (``go env -w``), ``$GOROOT/go.env``. Asking
costs a process (~7 ms) and the imports of ``shutil`` and ``locale`` (~6 ms), at every
start. The answer depends only on what Go reads to give it, so it is kept in the launch
directory (``tai_core.config.read_launch_file``: read-only inside the sandbox, read only
when the user's alone) together with all of that, and asked again when any of it changes:

* the ``go`` found on ``PATH``: its path, and the inode, size and modification time of the
  file it resolves to (an upgrade replaces it);
* the modification times of Go's environment file (``GOENV``, else ``go/env`` in the
  user's configuration directory) and of ``$GOROOT/go.env``;
* the environment variables Go reads for them (:data:`_INPUTS`).

Not in the key: a ``toolchain`` line of a ``go.mod`` that makes ``go`` run another version,
which names the same directories. What is kept only decides which directories are
overlaid, never what is writable, and a mistake costs a build its cache, not the sandbox.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

from tai_core.config import launch_file, read_launch_file, write_launch_file

#: The directories asked for, in this order.
NAMES = ("GOCACHE", "GOMODCACHE", "GOPATH")

#: The environment variables ``go env`` reads for them.
_INPUTS = (*NAMES, "GOENV", "GOROOT", "GOTOOLCHAIN", "GOFLAGS", "HOME", "XDG_CONFIG_HOME",
           "XDG_CACHE_HOME")  # fmt: skip

#: Bumped when the kept file's layout or key changes.
FORMAT = 1


def which(name: str) -> Path | None:
    """The first executable ``name`` on ``PATH`` (``shutil.which`` without shutil, whose
    import loads three compression modules)."""
    for directory in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = Path(directory or ".", name)
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def _stamp(path: Path) -> list[object]:
    try:
        info = path.stat()
    except (OSError, ValueError):
        return [str(path), None]
    return [str(path), info.st_ino, info.st_size, info.st_mtime_ns]


def _go_env_file() -> Path:
    """Go's environment file (what ``go env -w`` writes), as Go finds it."""
    if os.environ.get("GOENV"):
        return Path(os.environ["GOENV"])
    if sys.platform == "darwin":
        base = Path("~/Library/Application Support").expanduser()
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path("~/.config").expanduser())
    return base / "go" / "env"


def _key(go: Path, missing: list[str]) -> list[object]:
    """What the answer for ``missing`` of the ``go`` at that path depends on."""
    real = go.resolve()
    root = Path(os.environ.get("GOROOT") or real.parent.parent)
    return [
        FORMAT,
        missing,
        str(go),
        _stamp(real),
        _stamp(root / "go.env"),
        _stamp(_go_env_file()),
        [os.environ.get(name, "") for name in _INPUTS],
    ]


def _ask(go: Path, missing: list[str]) -> list[str] | None:
    """``go env`` for ``missing``: one value per line, or ``None`` when go fails."""
    import subprocess

    try:
        answer = subprocess.run(
            [str(go), "env", *missing], capture_output=True, text=True, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return answer.stdout.splitlines()


def _kept(path: str, key: list[object]) -> list[str] | None:
    data = read_launch_file(path)
    try:
        kept = json.loads(data) if data is not None else None
    except ValueError:
        return None
    if not isinstance(kept, dict) or kept.get("key") != key:
        return None
    values = kept.get("values")
    if isinstance(values, list) and all(isinstance(value, str) for value in values):
        return values
    return None


def go_env(keep: bool = True) -> dict[str, str]:
    """``GOCACHE``, ``GOMODCACHE`` and ``GOPATH``: from the environment when set, else as
    ``go env`` answers (kept between starts when ``keep``), else empty (no Go)."""
    values = {name: os.environ.get(name, "") for name in NAMES}
    missing = [name for name in NAMES if not values[name]]
    go = which("go") if missing else None
    if go is None:
        return values
    key = _key(go, missing)
    path = launch_file("go-env", "json")
    answer = _kept(path, key) if keep else None
    if answer is None:
        answer = _ask(go, missing)
        if answer is None:
            return values
        if keep:  # inside the sandbox the write fails: asked again at the next start
            with contextlib.suppress(OSError):
                write_launch_file(path, json.dumps({"key": key, "values": answer}).encode())
    values.update(zip(missing, answer, strict=False))
    return values
