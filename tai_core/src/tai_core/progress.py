"""What a long step is doing, said on stderr while it runs.

A step that can take more than a second — building a helper program, documenting many
packages, a test run — must not leave the user looking at a silent terminal, and one that
ends quickly must not print anything. :class:`Progress` does both: nothing until the step
has run for ``after`` seconds, then one line saying what it does, how long it has run and
what it has counted so far (``tai: building goimports: 14 s, 2 modules downloaded, 37
packages compiled``), again every ``every`` seconds whether or not anything was counted
(a build can spend many seconds on one package), and a last line when it ends — only if
it said anything before. On a terminal the line is rewritten in place, elsewhere (a CI
log) a new line is written each time.

The repeating line comes from a thread of its own, started on entering the ``with`` block
and joined on leaving it, so no thread outlives the step: tai enters the sandbox only
while it runs a single thread. Counting from another thread is safe (one lock).

Why not a library (tqdm, rich): their bars assume a known total and a terminal; tai's
steps mostly have neither, and a ten-line timer does not justify an import on every start.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import TextIO

from tai_core._printable import printable


class Progress:
    """``with Progress("building goimports") as progress: ... progress.count("packages
    compiled")`` — see the module docstring."""

    def __init__(
        self,
        what: str,
        *,
        stream: TextIO | None = None,
        after: float = 1.0,
        every: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        ticker: bool = True,
    ) -> None:
        # model text may be in it (a shell block's first line): no control character reaches
        # the terminal (the same reading as tai_core.store's shown_path)
        self.what = printable(what)
        self.stream = sys.stderr if stream is None else stream
        self.after = after
        self._terminal = _is_terminal(self.stream)
        #: Seconds between lines: each second on a terminal (rewritten), five elsewhere.
        self.every = every if every is not None else (1.0 if self._terminal else 5.0)
        self._clock = clock
        self._ticker = ticker
        self._started = clock()
        self._counts: dict[str, int] = {}
        #: How the last line says the step ended, when the step knows better than "done
        #: in" (a program that was killed: "stopped after").
        self.ending: str | None = None
        self._lock = threading.Lock()
        self._said_at: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Progress:
        self._started = self._clock()
        if self._ticker:
            self._thread = threading.Thread(target=self._tick, name="tai-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.finish(failed=kind is not None)

    def count(self, name: str, amount: int = 1) -> None:
        """Add ``amount`` to the counter ``name`` (``"packages compiled"``); once the step
        has ended, counting says nothing more."""
        with self._lock:
            self._counts[name] = self._counts.get(name, 0) + amount
        self.poll()

    def poll(self) -> None:
        """Say where the step is, when it is due (the ticker calls this; so does count)."""
        now = self._clock()
        with self._lock:
            if self._stop.is_set() or now - self._started < self.after:
                return
            if self._said_at is not None and now - self._said_at < self.every:
                return
            self._said_at = now
            self._write(self._line(now), final=False)

    def finish(self, failed: bool = False) -> None:
        """The last line, when an earlier one was written: how long the step took."""
        with self._lock:
            if self._said_at is None:
                return
            self._said_at = self._clock()
            ending = "failed after" if failed else (self.ending or "done in")
            self._write(self._line(self._said_at, ending), final=True)

    def _tick(self) -> None:
        while not self._stop.wait(min(self.every, max(self.after, 0.05))):
            self.poll()

    def _line(self, now: float, state: str = "") -> str:
        seconds = f"{state} {now - self._started:.0f} s".strip()
        counted = "".join(f", {_counted(number, name)}" for name, number in self._counts.items())
        return f"tai: {self.what}: {seconds}{counted}"

    def _write(self, line: str, final: bool) -> None:
        try:
            if self._terminal:
                self.stream.write(f"\r\x1b[K{line}" + ("\n" if final else ""))
            else:
                self.stream.write(line + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass  # a closed or broken stderr must not end the step it reports on


def run_counted(
    command: list[str],
    progress: Progress,
    counter: Callable[[str], str | None],
    *,
    cwd: Path | str,
    env: Mapping[str, str],
    timeout: float,
) -> tuple[int, str]:
    """Run ``command`` (its standard output discarded), counting into ``progress`` each line
    of its standard error that ``counter`` names a counter for; its exit status and its
    standard error. A command still running after ``timeout`` seconds is killed and
    :class:`TimeoutError` raised."""
    import subprocess

    process = subprocess.Popen(
        command, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace",
    )  # fmt: skip
    killed = threading.Event()

    def kill() -> None:
        killed.set()
        process.kill()

    expired = threading.Timer(timeout, kill)
    expired.start()
    lines: list[str] = []
    try:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            name = counter(line.rstrip("\n"))
            if name:
                progress.count(name)
        status = process.wait()
    finally:
        expired.cancel()
        expired.join()
    if killed.is_set():
        raise TimeoutError(f"{command[0]} ran longer than {timeout:.0f} s")
    return status, "".join(lines)


def _counted(number: int, name: str) -> str:
    """``3 packages compiled``, ``1 package compiled``: a counter's name is plural."""
    noun, _, rest = name.partition(" ")
    if number == 1 and noun.endswith("s"):
        noun = noun[:-1]
    return " ".join(filter(None, (str(number), noun, rest)))


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
