"""A real terminal for the tests of what tai shows on one: a tmux server of the test's own
(its socket named for the test), one window of a fixed size running a command; keys are
sent as tmux sends them, and the screen is read back as text."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

import pytest


class Terminal:
    """``command`` running in a tmux window of ``width`` by ``height`` in ``cwd`` with
    ``env``; after it ends the window shows ``[exited STATUS]`` and stays."""

    def __init__(
        self,
        command: list[str],
        cwd: Path,
        env: Mapping[str, str],
        width: int = 100,
        height: int = 30,
    ) -> None:
        if shutil.which("tmux") is None:
            pytest.skip("tmux is not installed (.ci/run installs it)")
        self.socket = f"tai-test-{uuid.uuid4().hex[:12]}"
        line = f'{shlex.join(command)}; echo "[exited $?]"; sleep 600'
        self._tmux(
            "new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), "-c", str(cwd),
            line, env=env,
        )  # fmt: skip

    def _tmux(self, *args: str, env: Mapping[str, str] | None = None) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True, text=True, env=dict(env) if env else None, timeout=30,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout

    def screen(self, escapes: bool = False) -> str:
        """What the window shows now, trailing blank lines left out (with ``escapes``, with
        the sequences of its colours and attributes)."""
        flags = ["-p", "-e"] if escapes else ["-p"]
        return self._tmux("capture-pane", *flags, "-t", "t").rstrip("\n") + "\n"

    def send(self, *keys: str) -> None:
        """Press ``keys`` (tmux key names: ``Enter``, ``C-c``, ``C-d``; other text typed)."""
        self._tmux("send-keys", "-t", "t", *keys)

    def type(self, text: str) -> None:
        """Type ``text`` literally."""
        self._tmux("send-keys", "-t", "t", "-l", text)

    def wait_for(self, text: str, count: int = 1, limit: float = 20.0) -> str:
        """Until the screen shows ``text`` at least ``count`` times (failing with the
        screen after ``limit`` seconds: a bound for a hang, not a timing check); the
        screen then."""
        deadline = time.monotonic() + limit
        while (screen := self.screen()).count(text) < count:
            if time.monotonic() > deadline:
                pytest.fail(f"still waiting for {text!r} x{count}; the screen:\n{screen}")
            time.sleep(0.05)
        return screen

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=30)
