"""From process start to the request at the model: `tai next -model local chat hi`.

Targets: median at most 400 ms from starting the process to the local OpenAI-compatible
server receiving the request; peak RSS of the process at most 120 MB; litellm not imported.
The server is the tests' fake server on 127.0.0.1; byte-code is compiled first, as an
installed package has it.
"""

from __future__ import annotations

import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.servers import FakeModelServer, Reply  # noqa: E402

RUNS = 15


def one_run(tai: str, cwd: str, env: dict[str, str], server: FakeModelServer) -> tuple[float, int]:
    """Seconds until the request arrived, and the process's peak RSS in KiB."""
    server.script(Reply(text="hi\n"))
    seen = len(server.requests)
    start = time.monotonic()
    process = subprocess.Popen(
        [tai, "next", "chat", "hi"], cwd=cwd, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    while len(server.requests) == seen:
        if process.poll() is not None:
            raise SystemExit(f"tai exited with {process.returncode} before sending a request")
        time.sleep(0.0005)
    arrived = time.monotonic() - start
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("tai next failed")
    return arrived, usage.ru_maxrss


def main() -> None:
    for folder in ("tai_core", "tai_blocks", "tai_providers", "tai_sandbox"):
        compileall.compile_dir(REPO / folder / "src", quiet=1)
    tai = str(Path(sys.executable).with_name("tai"))
    with FakeModelServer("openai") as server, tempfile.TemporaryDirectory() as cwd:
        Path(cwd, "tai.toml").write_text(
            'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\n'
            f'model = "m"\nbase_url = "{server.base_url}"\napi_key = "k"\n'
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("TAI_")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["TAI_CONFIG_DIR"] = cwd
        one_run(tai, cwd, env, server)  # warm-up
        runs = [one_run(tai, cwd, env, server) for _ in range(RUNS)]
        server.script(Reply(text="hi\n"))
        probe = subprocess.run(
            [sys.executable, "-X", "importtime", tai, "next", "chat", "hi"],
            cwd=cwd, env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
    litellm = any(line.rstrip().endswith("| litellm") for line in probe.stderr.splitlines())
    latency = statistics.median(seconds for seconds, _ in runs) * 1000
    rss = max(kib for _, kib in runs) / 1024
    print(
        f"next_latency: start to request {latency:.0f} ms median of {RUNS}, peak RSS {rss:.0f} MB, "
        f"litellm imported: {'yes' if litellm else 'no'} (targets <= 400 ms, <= 120 MB, no)"
    )


if __name__ == "__main__":
    main()
