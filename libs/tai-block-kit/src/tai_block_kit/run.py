"""Running a command with a time limit, its output captured within bounds.

The command gets its own session (process group), registered while it runs so that a
cancelled run kills it at once (``tai_core.blocks.running``), and so the time limit ends
everything it started, not only the shell; processes still in the group when the command itself ends
are ended too, since a block's command is over when its result is fed back. Output is
read as it comes and only the head and the tail of each stream are kept (the cut is said),
so a command that prints gigabytes costs no memory and the model sees the start and the
end, where errors usually are. The user sees on stderr what runs once it has run over a
second (:mod:`tai_core.progress`, polled by the reading loop: no thread).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shlex
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs

from tai_core.blocks import RunContext, running
from tai_core.progress import Progress

#: Bytes kept of each stream: half from the start, half from the end.
OUTPUT_LIMIT = 32 * 1024
#: Seconds to collect what is left in the pipes after the command ended or was killed.
_GRACE = 1.0


class _Capped:
    """A stream's head and tail, and how much came in all."""

    def __init__(self, limit: int) -> None:
        self.half = limit // 2
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > self.half:
            del self.tail[: len(self.tail) - self.half]

    def text(self) -> str:
        cut = self.total - len(self.head) - len(self.tail)
        middle = f"\n[… {cut} bytes cut …]\n" if cut else ""
        return self.head.decode(errors="replace") + middle + self.tail.decode(errors="replace")


@attrs.frozen
class Finished:
    """How a command ended: ``code`` as ``subprocess`` gives it (negative: the signal that
    ended it), ``timed_out`` when the time limit killed it."""

    code: int
    stdout: str
    stderr: str
    timed_out: bool

    @property
    def ok(self) -> bool:
        """True when the command ended by itself with exit status 0."""
        return self.code == 0 and not self.timed_out

    def streams(self) -> str:
        """Both streams as blocks feed them back: ``Stdout:``, its text, ``Stderr:``, its text."""
        return f"Stdout:\n{self.stdout}\nStderr:\n{self.stderr}"


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def run_captured(
    argv: Sequence[str],
    cwd: Path,
    timeout: float,
    limit: int = OUTPUT_LIMIT,
    *,
    context: RunContext | None = None,
    what: str = "",
    variables: Mapping[str, str] | None = None,
) -> Finished:
    """Run ``argv`` in ``cwd`` with no input, at most ``timeout`` seconds, in tai's
    environment with ``variables`` set over it; with a ``context``, plugins adjust
    the program first (``tai_block_process``: secrets out of the environment, the sandbox's
    network cut). A run of over a second says on stderr that ``what`` (default: the
    command) is running, and for how long."""
    command, env = list(argv), {**os.environ, **(variables or {})}
    if context is not None:
        context.hook.tai_block_process(argv=command, env=env, config=context.config)
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    with running(process.pid), Progress(what or shlex.join(command), ticker=False) as progress:
        finished = _collect(process, timeout, limit, progress)
        if finished.timed_out:
            progress.ending = "timed out after"
        elif finished.code < 0:  # killed: a cancelled turn stops what its blocks run
            progress.ending = "stopped after"
        elif finished.code > 0:
            progress.ending = f"exit status {finished.code} after"
        return finished


def _collect(
    process: subprocess.Popen[bytes], timeout: float, limit: int, progress: Progress
) -> Finished:
    """Read ``process``'s output until it ends (or ``timeout``), then end its group."""
    assert process.stdout is not None and process.stderr is not None
    out, err = _Capped(limit), _Capped(limit)
    streams = {process.stdout.fileno(): out, process.stderr.fileno(): err}
    deadline = time.monotonic() + timeout
    timed_out = ended = False
    with selectors.DefaultSelector() as selector:
        for fd in streams:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            progress.poll()
            if not ended and process.poll() is not None:
                ended = True
                _kill_group(process.pid)
                deadline = min(deadline, time.monotonic() + _GRACE)
            now = time.monotonic()
            if now >= deadline:
                if ended or timed_out:
                    break
                timed_out = True
                _kill_group(process.pid)
                deadline = now + _GRACE
                continue
            for key, _ in selector.select(timeout=min(deadline - now, 0.1)):
                chunk = os.read(key.fd, 1 << 16)
                if chunk:
                    streams[key.fd].add(chunk)
                else:
                    selector.unregister(key.fd)
    code = process.wait()
    _kill_group(process.pid)
    process.stdout.close()
    process.stderr.close()
    return Finished(code=code, stdout=out.text(), stderr=err.text(), timed_out=timed_out)
