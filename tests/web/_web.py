"""A real ``tai web`` process for the web client's tests, and a WebSocket client of it."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.commands.test_next import configure
from tests.conftest import tai_executable
from tests.servers import FakeModelServer


def configure_web(folder: Path, server: FakeModelServer, extra: str = "") -> None:
    """``folder``'s ``tai.toml``: the model ``local`` at ``server``, read timeouts long
    enough that a stalled reply waits for the cancel, ``extra`` first."""
    configure(folder, server)
    config = folder / "tai.toml"
    text = config.read_text().replace("read_timeout = 2.0", "read_timeout = 60.0")
    config.write_text(extra + text)


class WebProcess:
    """``tai web ARGS`` in ``cwd``; :attr:`url` is the URL it printed (with its token)."""

    def __init__(self, cwd: Path, env: dict[str, str], *args: str) -> None:
        self.process = subprocess.Popen(
            [tai_executable(), "web", *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )  # fmt: skip
        self.line = self._first_line()
        found = re.search(r"(http://[^/\s]+)/\?token=(\S+)", self.line)
        assert found, self.line
        self.base, self.token = found.group(1), found.group(2)
        self.url = f"{self.base}/?token={self.token}"

    def _first_line(self, limit: float = 60.0) -> str:
        assert self.process.stdout is not None
        deadline = time.monotonic() + limit
        line = b""
        while not line.endswith(b"\n"):
            ready = select.select([self.process.stdout], [], [], deadline - time.monotonic())[0]
            chunk = os.read(self.process.stdout.fileno(), 1) if ready else b""
            if not chunk:
                stderr = self.process.stderr.read().decode() if self.process.poll() else ""
                pytest.fail(f"tai web printed no URL: {line!r} {stderr}")
            line += chunk
        return line.decode()

    def stop(self, sig: int = signal.SIGINT) -> tuple[int, str]:
        """Send ``sig``; the exit status and standard error."""
        self.process.send_signal(sig)
        status = self.process.wait(timeout=60)
        assert self.process.stderr is not None
        return status, self.process.stderr.read().decode()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)


class Socket:
    """A WebSocket client of ``tai web`` and the events it read."""

    def __init__(self, socket: Any) -> None:
        self.socket = socket
        #: Every event read, and those not yet passed by :meth:`until`.
        self.seen: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []

    async def send(self, **command: Any) -> None:
        await self.socket.send_str(json.dumps(command))

    async def until(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Read until an event of ``kind`` with ``fields``; the events up to it are passed.
        (The caller's ``asyncio.wait_for`` bounds a hang.)"""
        while True:
            for index, event in enumerate(self.events):
                if event["type"] == kind and all(event.get(k) == v for k, v in fields.items()):
                    del self.events[: index + 1]
                    return event
            message = await self.socket.receive_str()
            event = json.loads(message)
            self.seen.append(event)
            self.events.append(event)
