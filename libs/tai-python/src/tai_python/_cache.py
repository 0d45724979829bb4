"""Summaries kept by content: a module that did not change is never parsed twice.

The key hashes the summary's version (:data:`tai_python._summary.VERSION`), the
interpreter's version (its grammar decides what parses) and the module's bytes; the entry
is the summary as JSON under ``<cache>/py-outline/KEY[:2]/KEY``. JSON and never pickle: the
cache directory is writable inside the sandbox, where a model's commands run, and loading
a pickle runs code. The worst a forged entry can do is mislead an outline of a file with
exactly those bytes; a malformed one is ignored and parsed afresh. An unwritable cache
costs time, never correctness.

Many misses at once (a first load of a large project) are parsed in worker processes, one
per core up to four: parsing is the one cost of a cold load that grows with the code, and
it is pure (bytes in, a summary out). The workers are spawned, not forked, since the
calling process runs threads (the progress line). Below :data:`PARALLEL_FROM` misses the
start-up of the workers would cost more than it saves.
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
        temporary.write_text(json.dumps(summary, separators=(",", ":")), encoding="utf-8")
        temporary.replace(path)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()


#: How many modules must miss the cache before they are parsed in worker processes.
PARALLEL_FROM = 64


def _parsed(sources: list[tuple[bytes, str]]) -> list[Summary]:
    """The summaries of ``sources`` (bytes, file name), in order."""
    workers = min(4, os.cpu_count() or 1)
    if len(sources) < PARALLEL_FROM or workers < 2:
        return [summarize(data, name) for data, name in sources]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        datas, names = zip(*sources, strict=True)
        return list(pool.map(summarize, datas, names, chunksize=16))


def summaries_of(sources: list[tuple[bytes, str]]) -> list[Summary]:
    """The summary of each module's bytes (with its file name, for messages), in order:
    from the cache, or parsed and then cached."""
    base = _cache_dir()
    paths = [base / key[:2] / key for key in (_key(data) for data, _ in sources)]
    found = [_read(path) for path in paths]
    missing = [index for index, summary in enumerate(found) if summary is None]
    made: set[Path] = set()
    for index, summary in zip(missing, _parsed([sources[i] for i in missing]), strict=True):
        found[index] = summary
        if paths[index].parent not in made:
            made.add(paths[index].parent)
            with contextlib.suppress(OSError):
                paths[index].parent.mkdir(parents=True, exist_ok=True)
        _write(paths[index], summary)
    return [summary or {} for summary in found]
