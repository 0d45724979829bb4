"""Summaries kept by content: a module that did not change is never parsed twice.

One JSON file per project (``<cache>/py-outline/ROOT-HASH.json``) maps each module's key —
a hash of the summary's version (:data:`tai_python._summary.VERSION`, which moves with the
tree-sitter-python grammar's pinned minor version), the interpreter's version (its parser
names a module's syntax error) and the module's bytes — to its summary. A load
reads the file once and, when it parsed anything, writes it back holding exactly the
modules it loaded (an atomic replace: two loads at once cost a parse, never a torn file),
so the file follows the project and never grows past it. One file, not one per module: a
warm load of a large project opens one file instead of hundreds.

JSON and never pickle: the cache directory is writable inside the sandbox, where a model's
commands run, and loading a pickle runs code. The worst a forged entry can do is mislead
an outline of a module with exactly those bytes; an entry that is not a summary, or a file
that is not JSON, is ignored and parsed afresh. An unwritable cache costs time, never
correctness.

Many misses at once (a first load of a large project) are parsed by worker processes
besides the calling process, one per other idle core up to three: parsing is the one cost
of a cold load that grows with the code, and it is pure (bytes in, a summary out). The
modules go out in chunks; the workers take them from the front while the calling process
takes what none has started from the back (a chunk not yet handed to a worker is
cancelled and parsed at home), so no core waits while a worker starts. A core counts as
idle when the load average leaves it so (as ``make --load-average`` decides): on a
machine already busy, a worker's start-up is time taken from the parse, which is then
faster in one process. Workers are spawned, not forked, since the calling process runs
threads (the progress line). Below :data:`PARALLEL_FROM` bytes of misses the start-up of
a worker would cost more than it saves.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from tai_python._summary import VERSION, Summary, summarize

#: How many bytes of source must miss the cache before worker processes help parse them
#: (tree-sitter parses about 5 MB a second here; a worker takes about 0.15 s to start).
PARALLEL_FROM = 1 << 20
#: How many modules a worker is given at a time.
_CHUNK = 16


def _cache_file(root: Path) -> Path:
    from tai_core.config import user_cache_dir

    name = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return user_cache_dir() / "py-outline" / f"{name}.json"


def _key(data: bytes) -> str:
    digest = hashlib.sha256(f"{VERSION} {sys.version_info[:2]}\0".encode())
    digest.update(data)
    return digest.hexdigest()


def _strings(found: Any) -> bool:
    return isinstance(found, list) and all(isinstance(item, str) for item in found)


def _valid_decls(decls: Any) -> bool:
    """Whether ``decls`` has the shape :mod:`._summary` gives (what rendering reads); one
    loop, not a generator per declaration: a warm load checks thousands."""
    if not isinstance(decls, list):
        return False
    for decl in decls:
        if not (
            isinstance(decl, dict)
            and isinstance(decl.get("kind"), str)
            and isinstance(decl.get("name"), str)
            and isinstance(decl.get("sig"), str)
            and isinstance(decl.get("line", 0), int)
            and isinstance(decl.get("doc") or "", str)
            and _strings(decl.get("decorators", []))
            and ("children" not in decl or _valid_decls(decl["children"]))
        ):
            return False
    return True


def _is_summary(found: Any) -> bool:
    """Whether a cache entry is a summary rendering can read; anything else (a forged or
    damaged entry) is parsed afresh."""
    if not isinstance(found, dict):
        return False
    if "error" in found:  # a module that does not parse: the error alone
        return found.keys() == {"error"} and isinstance(found["error"], str)
    imports = found.get("imports")
    return (
        _valid_decls(found.get("decls"))
        and isinstance(found.get("doc") or "", str)
        and isinstance(found.get("all") or "", str)
        and _strings(found.get("import_lines"))
        and _strings(found.get("tests"))
        and isinstance(imports, list)
        and all(
            isinstance(i, list) and len(i) == 3 and isinstance(i[0], int)
            and isinstance(i[1], str) and _strings(i[2])
            for i in imports
        )
    )  # fmt: skip


def _read(path: Path) -> dict[str, Any]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _write(path: Path, entries: dict[str, Summary]) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(entries, separators=(",", ":")), encoding="utf-8")
        temporary.replace(path)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()


def _summarized(sources: list[tuple[bytes, str]]) -> list[Summary]:
    return [summarize(data, name) for data, name in sources]


def _workers() -> int:
    """How many worker processes may help: one per core the load average (which counts
    the calling process, once it has run a while) leaves idle, rounded, besides the
    calling process's own, up to three."""
    cores = os.cpu_count() or 1
    try:
        idle = int(cores - os.getloadavg()[0] + 0.5)
    except (AttributeError, OSError):  # no load average on this system
        idle = cores
    return max(0, min(3, cores - 1, idle))


def _parsed(sources: list[tuple[bytes, str]]) -> list[Summary]:
    """The summaries of ``sources`` (bytes, file name), in order."""
    if sum(len(data) for data, _ in sources) < PARALLEL_FROM or not (workers := _workers()):
        return _summarized(sources)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    chunks = [sources[start : start + _CHUNK] for start in range(0, len(sources), _CHUNK)]
    mine: dict[int, list[Summary]] = {}
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        futures = [pool.submit(_summarized, chunk) for chunk in chunks]
        for index in reversed(range(len(chunks))):  # the workers take them from the front
            if futures[index].cancel():
                mine[index] = _summarized(chunks[index])
        done = [mine[i] if i in mine else future.result() for i, future in enumerate(futures)]
    return [summary for chunk in done for summary in chunk]


def summaries_of(root: Path, sources: list[tuple[bytes, str]]) -> list[Summary]:
    """The summary of each module of the project at ``root`` (its bytes, with its file
    name for messages), in order: from the project's cache file, or parsed (and the file
    then written with exactly these modules)."""
    path = _cache_file(root)
    cached = _read(path)
    keys = [_key(data) for data, _ in sources]
    found: list[Summary | None] = [
        entry if _is_summary(entry := cached.get(key)) else None for key in keys
    ]
    missing = [index for index, summary in enumerate(found) if summary is None]
    if missing:
        for index, summary in zip(missing, _parsed([sources[i] for i in missing]), strict=True):
            found[index] = summary
    done = [summary or {"error": "not parsed"} for summary in found]
    if missing or len(cached) != len(set(keys)):
        _write(path, dict(zip(keys, done, strict=True)))
    return done
