"""The tests' fake OpenAI-compatible server in a process of its own (not a benchmark itself).

A server thread inside the measured process shares its interpreter lock and its core: the
client's figure then holds the server's work, and a busy machine even hides it (the server
is starved while the client waits). ``Served(reply)`` starts this file as a subprocess,
which answers every request with the same scripted ``Reply`` (its fields as JSON) and
writes (when asked: ``report=True``, and then the benchmark must read them all with
``next_arrival``) one line per request it received, ``request <time.monotonic()>
<characters of the JSON messages>`` — the system-wide monotonic clock, comparable across
processes on Linux — so a benchmark knows when a request arrived, and how big it was,
without sharing memory with the server.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import TracebackType
from typing import IO, Any

REPO = Path(__file__).resolve().parent.parent


class Served:
    """A context manager: ``base_url`` while it runs; ``arrivals()`` reads request times."""

    def __init__(self, report: bool = False, **reply: Any) -> None:
        self._settings = {"reply": reply, "report": report}
        self.base_url = ""
        self._process: subprocess.Popen[str] | None = None

    def __enter__(self) -> Served:
        self._process = subprocess.Popen(
            [sys.executable, __file__, json.dumps(self._settings)], cwd=REPO,
            stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.base_url = self._out.readline().strip()
        if not self.base_url:
            raise SystemExit("the fake model server did not start")
        return self

    @property
    def _out(self) -> IO[str]:
        assert self._process is not None and self._process.stdout is not None
        return self._process.stdout

    def next_arrival(self) -> tuple[float, int]:
        """Block until the server reports a request; its arrival time (monotonic) and the
        characters of its messages."""
        line = self._out.readline()
        if not line.startswith("request "):
            raise SystemExit("the fake model server ended")
        _, arrived, size = line.split()
        return float(arrived), int(size)

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:  # fmt: skip
        assert self._process is not None and self._process.stdin is not None
        self._process.stdin.close()  # the server exits when its stdin ends
        self._process.wait(timeout=30)


def serve(settings: dict[str, Any]) -> None:
    import time

    sys.path.insert(0, str(REPO))
    from tests.servers import FakeModelServer
    from tests.servers._server import Recorded
    from tests.servers._wire import Reply

    reply, report = Reply(**settings["reply"]), settings["report"]

    class Repeating(FakeModelServer):
        def _take(self, recorded: Recorded) -> Reply | None:
            if report:
                body = recorded.body if isinstance(recorded.body, dict) else {}
                size = len(json.dumps(body.get("messages")))
                print(f"request {time.monotonic()} {size}", flush=True)
            return reply

    with Repeating("openai") as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    serve(json.loads(sys.argv[1]))
