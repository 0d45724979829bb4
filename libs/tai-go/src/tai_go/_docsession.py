"""A session with the documentation helper: jobs in, answers out, while tai works on.

One helper process serves a whole collection (:class:`Renderer`): the first batch of
cache misses starts it, later misses (the packages the budget asks for one at a time)
reuse it, and :meth:`Renderer.close` lets it end once it has answered everything. The
jobs are written by a writer thread and the answers — which the helper gives in job
order, each as soon as it and those before it are ready — are read by a reader thread
into :class:`~concurrent.futures.Future` objects. So :meth:`Renderer.submit` returns at
once and the collection renders the first focus package's outline (tree-sitter, in
Python) while the helper still documents the next ones in Go: the two overlap instead
of adding up.

A helper that dies, stalls longer than the timeout without an answer, or breaks the
protocol is killed; every job still waiting gets ``None`` (the caller runs ``go doc``
for it) and the session is not used again. The threads hold only the session, never
the :class:`Renderer`, so a renderer dropped without ``close`` (a collection that
raised) is collected and its helper told to end.
"""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import threading
import time
import weakref
from collections import deque
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import IO

import attrs

from tai_go._godoc import available

_started = [0]


def processes_started() -> int:
    """How many helper processes this process has started (for tests and benchmarks)."""
    return _started[0]


@attrs.frozen
class Job:
    """One package to document: ``go doc FLAGS TARGET`` (``./DIR`` or an absolute
    directory, as ``go doc`` would be given it), whose directory is ``dir`` and whose Go
    files (base name -> bytes) are ``files``."""

    flags: tuple[str, ...]
    target: str
    dir: Path
    files: Mapping[str, bytes]

    def frame(self) -> bytes:
        """The job in the helper's protocol (see ``godoc/main.go``)."""
        names = sorted(self.files)
        head = {"target": self.target, "dir": str(self.dir), "flags": list(self.flags),
                "names": names, "sizes": [len(self.files[n]) for n in names]}  # fmt: skip
        return b"".join([json.dumps(head).encode(), b"\n", *(self.files[n] for n in names)])


def _decode(data: bytes) -> str:
    """Documentation bytes as the text ``go doc``'s output gives (UTF-8, universal
    newlines, as :func:`subprocess.run` with ``text=True`` reads it)."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def _answer(stdout: IO[bytes]) -> str | None:
    """Read one answer: the documentation, or ``None`` when the helper declined."""
    line = stdout.readline()
    if not line:
        raise EOFError("the helper ended")
    head = json.loads(line)
    if not head["ok"]:
        return None
    size = int(head.get("size", 0))
    data = stdout.read(size) if size else b""
    if len(data) != size:
        raise EOFError("the helper's answer was cut short")
    return _decode(data)


def _done(value: str | None) -> Future[str | None]:
    future: Future[str | None] = Future()
    future.set_result(value)
    return future


class _Session:
    """A running helper with its writer and reader threads (see the module docstring)."""

    def __init__(self, process: subprocess.Popen[bytes], timeout: float) -> None:
        self.process = process
        self.timeout = timeout
        self.outbox: queue.SimpleQueue[list[Job] | None] = queue.SimpleQueue()
        self.waiting: deque[Future[str | None]] = deque()
        self.lock = threading.Lock()
        self.alive = True
        self.progress = time.monotonic()
        self.timer: threading.Timer | None = None
        threading.Thread(target=self._write, name="godoc-writer", daemon=True).start()
        threading.Thread(target=self._read, name="godoc-reader", daemon=True).start()

    def submit(self, jobs: Sequence[Job]) -> list[Future[str | None]]:
        futures: list[Future[str | None]] = [Future() for _ in jobs]
        with self.lock:
            if not self.alive:
                return [_done(None) for _ in jobs]
            if not self.waiting:
                self.progress = time.monotonic()
            self.waiting.extend(futures)
            self._watch()
            self.outbox.put(list(jobs))
        return futures

    def end(self) -> None:
        """No more jobs: the helper answers those it has, then exits."""
        self.outbox.put(None)

    def _watch(self) -> None:
        """(Under the lock.) Keep a timer running while answers are awaited."""
        if self.timer is None and self.waiting:
            due = self.progress + self.timeout - time.monotonic()
            self.timer = threading.Timer(max(due, 0.0), self._stalled)
            self.timer.daemon = True
            self.timer.start()

    def _stalled(self) -> None:
        with self.lock:
            self.timer = None
            if not self.waiting:
                return
            if time.monotonic() - self.progress < self.timeout:
                self._watch()
                return
        self.process.kill()  # the reader sees the end and releases the waiting jobs

    def _write(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            while (jobs := self.outbox.get()) is not None:
                for job in jobs:
                    stdin.write(job.frame())
                stdin.flush()
        except (OSError, ValueError):
            pass  # the helper is gone; the reader releases the waiting jobs
        finally:
            with contextlib.suppress(OSError, ValueError):
                stdin.close()

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while True:
                answer = _answer(stdout)
                with self.lock:
                    future = self.waiting.popleft()
                    self.progress = time.monotonic()
                future.set_result(answer)
        except (OSError, EOFError, ValueError, KeyError, IndexError, UnicodeDecodeError):
            pass  # ended, killed or out of protocol: what waits goes to go doc
        finally:
            with self.lock:
                self.alive = False
                left = list(self.waiting)
                self.waiting.clear()
                if self.timer is not None:
                    self.timer.cancel()
            for future in left:
                future.set_result(None)
            self._reap(stdout)

    def _reap(self, stdout: IO[bytes]) -> None:
        stdout.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Renderer:
    """The documentation helper for one collection (see the module docstring): started
    by the first :meth:`submit`, ended by :meth:`close`. Thread-safe."""

    def __init__(self, cwd: Path, env: Mapping[str, str], timeout: float) -> None:
        self.cwd = cwd
        self.env = dict(env)
        self.timeout = timeout
        self._session: _Session | None = None
        self._unavailable = False
        self._lock = threading.Lock()
        self._finalizer: weakref.finalize[..., None] | None = None

    def _start(self) -> _Session | None:
        if self._session is not None or self._unavailable:
            return self._session
        found = available(self.cwd, self.env)
        if found is None:
            self._unavailable = True
            return None
        try:
            process = subprocess.Popen(
                [str(found[0])], cwd=self.cwd, env=self.env, stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            )  # fmt: skip
        except OSError:
            self._unavailable = True
            return None
        _started[0] += 1
        self._session = _Session(process, self.timeout)
        self._finalizer = weakref.finalize(self, self._session.end)
        return self._session

    def submit(self, jobs: Sequence[Job]) -> list[Future[str | None]]:
        """Send ``jobs``; a future for each, resolved with its documentation or with
        ``None`` where the helper declined it or cannot be had (the caller then runs
        ``go doc``)."""
        if not jobs:
            return []
        with self._lock:
            session = self._start()
        return session.submit(jobs) if session else [_done(None) for _ in jobs]

    def render(self, jobs: Sequence[Job]) -> list[str | None]:
        """:meth:`submit`, waiting for the answers."""
        return [future.result() for future in self.submit(jobs)]

    def close(self) -> None:
        """No more jobs: the helper ends once it has answered those it has."""
        with self._lock:
            if self._finalizer is not None:
                self._finalizer()
