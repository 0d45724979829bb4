"""Ctrl-C during a streaming reply: from SIGINT to the `tai next` process having exited.

Target: at most 200 ms (the stream stops, nothing is applied, the process ends with 130).
The fake OpenAI-compatible server sends half the reply and then stalls, so the process is
waiting on the socket when the signal arrives.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.servers import FakeModelServer, Reply  # noqa: E402

RUNS = 10


def main() -> None:
    tai = str(Path(sys.executable).with_name("tai"))
    times = []
    with FakeModelServer("openai") as server, tempfile.TemporaryDirectory() as cwd:
        Path(cwd, "tai.toml").write_text(
            'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\n'
            f'model = "m"\nbase_url = "{server.base_url}"\napi_key = "k"\n'
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("TAI_")}
        env["TAI_CONFIG_DIR"] = cwd
        for _ in range(RUNS):
            server.script(Reply(text="first half, second half", chunks=2, fault="stall", stall=30))
            process = subprocess.Popen(
                [tai, "next", "chat", "hi"], cwd=cwd, env=env,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            assert process.stdout is not None
            process.stdout.read(5)
            sent = time.monotonic()
            process.send_signal(signal.SIGINT)
            if process.wait(timeout=10) != 130:
                raise SystemExit(f"tai exited with {process.returncode}, not 130")
            times.append(time.monotonic() - sent)
    print(
        f"cancel_latency: SIGINT to exit {statistics.median(times) * 1000:.0f} ms median "
        f"(max {max(times) * 1000:.0f} ms) of {RUNS}; target <= 200 ms"
    )


if __name__ == "__main__":
    main()
