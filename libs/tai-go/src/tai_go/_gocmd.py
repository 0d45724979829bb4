"""Running the ``go`` command: its environment, ``go list`` and ``go doc``.

``go list`` runs with ``-mod=mod`` added to ``GOFLAGS`` outside workspaces (an edit that
imports a new package still loads); ``go doc`` always runs with the *stripped* environment
(no ``-mod=mod``), so documentation never writes ``go.mod`` or ``go.sum``. ``go doc``
outputs are cached by content: the key hashes the ``go`` binary, the environment, the flags,
the package path and directory, and the names and bytes of the package's Go files, so an
unchanged package is never documented twice (in this process or, through the cache
directory, in the next one). The cache directory is writable inside the sandbox, and the
key is computable there (it hashes what a command can read): an entry planted by a
model's command would put its words into a later run's prompt, as the documentation of a
package the user never changed. So each entry starts with an HMAC of the key and the text
under tai's key (:func:`tai_core.store._key.mac`, hidden inside the sandbox); an entry
whose MAC does not check is a miss, documented afresh and written over. Without the key
nothing is kept or trusted.

Documentation is asked for in batches (:func:`request_docs`, futures, so the caller
works on while it comes): the cache answers what it can, the misses go together to one
documentation helper process (:mod:`._godoc`, :mod:`._docsession`), and only what the
helper declines or cannot do — or everything, when there is no helper — runs as ``go
doc`` subprocesses in parallel threads. The cache key is the same either way, since the
helper's output is ``go doc``'s, byte for byte.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import attrs

from tai_core.context import ContextError
from tai_go._docsession import Job, Renderer

#: Seconds one ``go list`` or ``go doc`` may take.
GO_TIMEOUT = 120.0
_memory: dict[str, str] = {}
_pool: list[ThreadPoolExecutor] = []
_pool_lock = threading.Lock()
T = TypeVar("T")


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


#: The purpose of the cache entries' MACs (a key of its own, derived from tai's).
PURPOSE = "go-doc"


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


def workers() -> int:
    """Threads that run ``go`` subprocesses at once."""
    return min(32, 2 * (os.cpu_count() or 2))


@attrs.frozen
class DocRequest:
    """``go doc FLAGS TARGET`` of the package in ``dir`` whose Go files (absolute path ->
    bytes, from the load's snapshot) are ``files``; ``TARGET`` is ``./DIR`` relative to
    the working directory or, outside it, the absolute directory."""

    flags: tuple[str, ...]
    target: str
    dir: Path
    files: Mapping[str, bytes]

    def job(self) -> Job:
        files = {Path(name).name: data for name, data in self.files.items()}
        return Job(self.flags, self.target, self.dir, files)


def renderer(cwd: Path, env: Mapping[str, str]) -> Renderer:
    """A documentation helper session for ``go doc`` in ``cwd`` (started on first use)."""
    return Renderer(cwd, env, GO_TIMEOUT)


def _seal(key: str, text: str) -> str | None:
    """The MAC of the entry ``key`` holding ``text``; ``None`` without tai's key."""
    from tai_core.store import FlushError
    from tai_core.store._key import mac

    try:
        return mac(f"{key}\0{text}".encode("utf-8", "surrogatepass"), PURPOSE)
    except FlushError:
        return None


def _cached(key: str) -> str | None:
    if key in _memory:
        return _memory[key]
    try:
        stored = (_cache_dir() / key[:2] / key).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    tag, _, text = stored.partition("\n")
    seal = _seal(key, text)
    if seal is None or not hmac.compare_digest(seal, tag):
        return None  # planted, damaged or of another key: documented afresh
    _memory[key] = text
    return text


def _store(key: str, text: str) -> str:
    _memory[key] = text
    seal = _seal(key, text)
    if seal is None:
        return text
    stored = _cache_dir() / key[:2] / key
    try:
        stored.parent.mkdir(parents=True, exist_ok=True)
        partial = stored.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(f"{seal}\n{text}", encoding="utf-8")
        partial.replace(stored)
    except (OSError, UnicodeError):
        pass  # an unwritable cache costs time, never correctness
    return text


def _threads() -> ThreadPoolExecutor:
    """The threads that run ``go doc`` subprocesses (made once, kept for the process)."""
    with _pool_lock:
        if not _pool:
            _pool.append(ThreadPoolExecutor(workers(), thread_name_prefix="go-doc"))
        return _pool[0]


def _settle(target: Future[T], source: Future[T]) -> None:
    """Give ``target`` the outcome of ``source``."""
    try:
        target.set_result(source.result())
    except BaseException as error:  # noqa: BLE001 - handed on to whoever waits
        target.set_exception(error)


def plain_doc(
    flags: Sequence[str], path: str, cwd: Path, env: Mapping[str, str]
) -> str | ContextError:
    """``go doc FLAGS PATH``, uncached (a package outside the snapshot), or its error."""
    try:
        return run_go(["doc", *flags, path], cwd, env)
    except ContextError as error:
        return error


def in_thread(call: Callable[[], T]) -> Future[T]:
    """``call()`` in one of the ``go doc`` threads."""
    return _threads().submit(call)


def request_docs(requests: Sequence[DocRequest], cwd: Path, env: Mapping[str, str],
                 helper: Renderer | None = None) -> list[Future[str | ContextError]]:  # fmt: skip
    """``go doc`` of each request, in order, as futures (a :class:`ContextError` where
    it fails): from the cache, else from ``helper`` (one session for all misses; a
    fresh one, closed when its answers are in, when ``None``), else from ``go doc``
    itself in threads (see the module docstring). Returns at once."""
    keys = [doc_key(r.flags, r.target, cwd, env, r.files) for r in requests]
    results: list[Future[str | ContextError]] = [Future() for _ in requests]

    def real(index: int) -> str | ContextError:
        request = requests[index]
        try:
            text = run_go(["doc", *request.flags, request.target], cwd, env)
        except ContextError as error:
            return error
        return _store(keys[index], text)

    def fallback(index: int) -> None:
        in_thread(lambda: real(index)).add_done_callback(partial(_settle, results[index]))

    def answered(index: int, answer: Future[str | None]) -> None:
        try:
            text = answer.result()
        except BaseException as error:  # noqa: BLE001 - handed on to whoever waits
            results[index].set_exception(error)
            return
        if text is None:
            fallback(index)
        else:
            results[index].set_result(_store(keys[index], text))

    misses = []
    for index, key in enumerate(keys):
        text = _cached(key)
        if text is not None:
            results[index].set_result(text)
        elif requests[index].files:
            misses.append(index)
        else:
            fallback(index)  # no Go files (tests only): go doc's error to give, every time
    if misses:
        session = helper or renderer(cwd, env)
        answers = session.submit([requests[i].job() for i in misses])
        if helper is None:
            session.close()  # ends once these are answered
        for index, answer in zip(misses, answers, strict=True):
            answer.add_done_callback(partial(answered, index))
    return results


def go_docs(requests: Sequence[DocRequest], cwd: Path, env: Mapping[str, str],
            helper: Renderer | None = None) -> list[str | ContextError]:  # fmt: skip
    """:func:`request_docs`, waiting for the results."""
    return [future.result() for future in request_docs(requests, cwd, env, helper)]
