"""Running the ``go`` command: its environment, ``go list`` and ``go doc``.

``go list`` runs with ``-mod=mod`` added to ``GOFLAGS`` outside workspaces (an edit that
imports a new package still loads); ``go doc`` always runs with the *stripped* environment
(no ``-mod=mod``), so documentation never writes ``go.mod`` or ``go.sum``. ``go doc``
outputs are cached by content: the key hashes the ``go`` binary, the environment, the flags,
the package path and directory, and the names and bytes of the package's Go files, so an
unchanged package is never documented twice (in this process or, through the cache
directory, in the next one).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tai_core.context import ContextError

#: Seconds one ``go list`` or ``go doc`` may take.
GO_TIMEOUT = 120.0
_memory: dict[str, str] = {}


def _one_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return "; ".join(lines)[:500] or "no output"


def _flags_without_mod(goflags: str, keep: Iterable[str] = ()) -> list[str]:
    return [
        flag
        for flag in goflags.split()
        if not flag.startswith("-mod=") or flag.removeprefix("-mod=") in keep
    ]


def base_environment(envs: Sequence[str]) -> dict[str, str]:
    """The process's environment with ``go.envs`` (``KEY=VALUE`` entries) applied."""
    base = dict(os.environ)
    base.update(entry.partition("=")[::2] for entry in envs if "=" in entry)
    return base


def environments(base: Mapping[str, str], workspace: bool) -> tuple[dict[str, str], dict[str, str]]:
    """The environments of ``go list`` and of ``go doc`` from ``base``, with ``GOFLAGS``
    adjusted as the module docstring says."""
    goflags = base.get("GOFLAGS", "")
    listing = dict(base)
    if workspace:
        listing["GOFLAGS"] = " ".join(_flags_without_mod(goflags, ("readonly", "vendor")))
    elif "-mod=" not in goflags:
        listing["GOFLAGS"] = f"{goflags} -mod=mod".strip()
    doc = dict(base)
    doc["GOFLAGS"] = " ".join(_flags_without_mod(goflags, ("readonly", "vendor")))
    return listing, doc


def run_go(args: Sequence[str], cwd: Path, env: Mapping[str, str]) -> str:
    """``go ARGS`` in ``cwd``: its standard output, or :class:`ContextError` with the
    ``go`` message on one line."""
    go = shutil.which("go", path=env.get("PATH"))
    if go is None:
        raise ContextError("go: the go command was not found on PATH")
    try:
        done = subprocess.run(
            [go, *args], cwd=cwd, env=dict(env), capture_output=True, text=True,
            timeout=GO_TIMEOUT, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired as error:
        raise ContextError(f"go {args[0]}: timed out after {GO_TIMEOUT:g} s") from error
    if done.returncode:
        raise ContextError(f"go {args[0]}: {_one_line(done.stderr or done.stdout)}")
    return done.stdout


def go_list(patterns: Sequence[str], cwd: Path, env: Mapping[str, str], tests: bool) -> list[Any]:
    """The packages ``go list -e -json -deps [-test] PATTERNS`` reports, in its order."""
    args = ["list", "-e", "-json", "-deps", *(["-test"] if tests else []), "--", *patterns]
    text = run_go(args, cwd, env)
    decoder = json.JSONDecoder()
    found, index = [], 0
    while True:
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            return found
        value, index = decoder.raw_decode(text, index)
        found.append(value)


def _cache_dir() -> Path:
    from tai_core.config import user_cache_dir

    return user_cache_dir() / "go-doc"


def doc_key(flags: Sequence[str], package: str, cwd: Path, env: Mapping[str, str],
            files: Mapping[str, bytes]) -> str:  # fmt: skip
    """The content key of a ``go doc`` output (see the module docstring)."""
    go = shutil.which("go", path=env.get("PATH")) or "go"
    stat = Path(go).stat() if Path(go).exists() else None
    digest = hashlib.sha256()
    header = [go, str(stat and (stat.st_size, stat.st_mtime_ns)), str(cwd), package, *flags]
    header += [f"{k}={env.get(k, '')}" for k in ("GOFLAGS", "GOOS", "GOARCH", "CGO_ENABLED")]
    digest.update("\0".join(header).encode())
    for name in sorted(files):
        digest.update(b"\0" + name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    return digest.hexdigest()


def go_doc(flags: Sequence[str], package: str, cwd: Path, env: Mapping[str, str],
           files: Mapping[str, bytes]) -> str:  # fmt: skip
    """``go doc FLAGS PACKAGE`` (cached by content, see the module docstring); raises
    :class:`ContextError` when ``go doc`` fails."""
    key = doc_key(flags, package, cwd, env, files)
    if key in _memory:
        return _memory[key]
    stored = _cache_dir() / key[:2] / key
    try:
        text = stored.read_text(encoding="utf-8")
    except OSError:
        text = run_go(["doc", *flags, package], cwd, env)
        try:
            stored.parent.mkdir(parents=True, exist_ok=True)
            partial = stored.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(text, encoding="utf-8")
            partial.replace(stored)
        except OSError:
            pass  # an unwritable cache costs time, never correctness
    _memory[key] = text
    return text
