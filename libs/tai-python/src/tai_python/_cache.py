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
commands run, and loading a pickle runs code. Its key is computable there too (it hashes
what a command can read), so an entry planted by a model's command would put its words
into every later outline of that module, as the summary of code the user never changed.
The file therefore starts with an HMAC of the JSON under tai's key
(:func:`tai_core.store._key.mac`, hidden inside the sandbox): a file whose MAC does not
check — planted, edited or damaged — is ignored whole, its modules parsed afresh and the
file written over. (Another project's genuine file would be harmless: its entries are
keyed by content, so they are true of any module with those bytes.) Without the key
nothing is kept or trusted. An unwritable cache costs time, never correctness.

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
import hmac
import json
import os
import sys
from pathlib import Path

from tai_python._summary import VERSION, Summary, summarize

#: The purpose of the cache file's MAC (:func:`tai_core.store._key.mac`).
PURPOSE = "py-outline"
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


def _seal(body: bytes) -> str | None:
    """The MAC of a cache file holding ``body``; ``None`` without tai's key."""
    from tai_core.store import FlushError
    from tai_core.store._key import mac

    try:
        return mac(body, PURPOSE)
    except FlushError:
        return None


def _read(path: Path) -> dict[str, Summary]:
    """The entries of the cache file at ``path``, or none when its MAC does not check (a
    file whose MAC checks is one tai wrote: a JSON object of summaries)."""
    try:
        tag, _, body = path.read_bytes().partition(b"\n")
    except OSError:
        return {}
    seal = _seal(body)
    if seal is None or not hmac.compare_digest(seal.encode(), tag):
        return {}  # planted, edited or damaged: parsed afresh
    entries: dict[str, Summary] = json.loads(body)
    return entries


def _write(path: Path, entries: dict[str, Summary]) -> None:
    body = json.dumps(entries, separators=(",", ":")).encode()
    seal = _seal(body)
    if seal is None:
        return
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(seal.encode() + b"\n" + body)
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
    found: list[Summary | None] = [cached.get(key) for key in keys]
    missing = [index for index, summary in enumerate(found) if summary is None]
    if missing:
        for index, summary in zip(missing, _parsed([sources[i] for i in missing]), strict=True):
            found[index] = summary
    done = [summary or {"error": "not parsed"} for summary in found]
    if missing or len(cached) != len(set(keys)):
        _write(path, dict(zip(keys, done, strict=True)))
    return done
