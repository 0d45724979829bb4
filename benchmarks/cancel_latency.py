"""Ctrl-C during a streaming reply: from SIGINT to the `tai next` process having exited.

Target: at most 200 ms (the stream stops, nothing is applied, the process ends with 130).
Method: the tests' fake model server, in a process of its own (``_server.py``), sends
half the reply and then stalls, so tai is waiting on the socket when the signal arrives
(sent once the first streamed bytes are on tai's stdout). The exit is taken by a blocking
``os.waitpid`` — not ``Popen.wait(timeout=…)``, which polls in growing sleeps up to 50 ms
and rounded the old figures up to its steps. Baseline, alternated with it: the same
signal to the bare interpreter of the same environment sleeping after it printed a line
(its ``KeyboardInterrupt`` and exit). 15 rounds after a warm-up round; medians (min-max).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _procs import TAI, environment
from _report import finish
from _server import Served
from _timing import alternate, difference

RUNS = 15
TARGET = "200 ms"
SLEEPER = [sys.executable, "-c", "import time; print('ready', flush=True); time.sleep(60)"]


def interrupted(command: list[str], cwd: Path, env: dict[str, str], status: int | None) -> float:
    """Seconds from SIGINT (once ``command`` printed something) to its exit."""
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)  # fmt: skip
    assert process.stdout is not None
    watchdog = threading.Timer(10, process.kill)
    watchdog.start()
    try:
        if not process.stdout.read(5):
            raise SystemExit(f"{command[0]} printed nothing")
        sent = time.perf_counter()
        process.send_signal(signal.SIGINT)
        _, code = os.waitpid(process.pid, 0)
        elapsed = time.perf_counter() - sent
    finally:
        watchdog.cancel()
    process.returncode = os.waitstatus_to_exitcode(code)
    if status is not None and process.returncode != status:
        raise SystemExit(f"tai exited with {process.returncode}, not {status}")
    return elapsed


def main() -> None:
    reply = {"text": "first half, second half", "chunks": 2, "fault": "stall", "stall": 30}
    with Served(**reply) as server, tempfile.TemporaryDirectory() as temp:
        cwd = Path(temp)
        env = environment(cwd / "home")
        (cwd / "tai.toml").write_text(
            'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\n'
            f'model = "m"\nbase_url = "{server.base_url}"\napi_key = "k"\n'
        )
        times = alternate(
            {
                "tai": lambda: interrupted([TAI, "next", "chat", "hi"], cwd, env, 130),
                "bare": lambda: interrupted(SLEEPER, cwd, env, None),
            },
            RUNS,
        )
    tai, bare = times["tai"], times["bare"]
    finish(
        f"cancel_latency: SIGINT to exit {tai.text('ms')} against {bare.text('ms')} for the bare "
        f"interpreter (tai's own {difference(tai, bare).text('ms')}); medians (min-max) of "
        f"{RUNS} alternated rounds after a warm-up; target <= 200 ms",
        {"<= 200 ms": tai.median <= 0.2},
    )


if __name__ == "__main__":
    main()
