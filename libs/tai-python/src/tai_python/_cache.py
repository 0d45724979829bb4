"""Summaries kept by content: a module that did not change is never parsed twice.

The key hashes the summary's version (:data:`tai_python._summary.VERSION`), the
interpreter's version (its grammar decides what parses) and the module's bytes; the entry
is the summary as JSON under ``<cache>/py-outline/KEY[:2]/KEY``. JSON and never pickle: the
cache directory is writable inside the sandbox, where a model's commands run, and loading
a pickle runs code. The worst a forged entry can do is mislead an outline of a file with
exactly those bytes; a malformed one is ignored and parsed afresh. An unwritable cache
costs time, never correctness.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from pathlib import Path

from tai_python._summary import VERSION, Summary, summarize


def _cache_dir() -> Path:
    from tai_core.config import user_cache_dir

    return user_cache_dir() / "py-outline"


def _key(data: bytes) -> str:
    digest = hashlib.sha256(f"{VERSION} {sys.version_info[:2]}\0".encode())
    digest.update(data)
    return digest.hexdigest()


def _read(path: Path) -> Summary | None:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(found, dict) and ("decls" in found or "error" in found):
        return found
    return None


def _write(path: Path, summary: Summary) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(summary, separators=(",", ":")), encoding="utf-8")
        temporary.replace(path)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()


def summary_of(data: bytes, filename: str) -> Summary:
    """The summary of a module's bytes, from the cache or parsed (and then cached)."""
    key = _key(data)
    path = _cache_dir() / key[:2] / key
    found = _read(path)
    if found is None:
        found = summarize(data, filename)
        _write(path, found)
    return found
