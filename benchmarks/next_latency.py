"""From process start to the request at the model: `tai next -model local chat hi`.

Targets: median at most 400 ms from starting the process to the local OpenAI-compatible
server receiving the request, in a directory outside any Go module that holds only the
configuration (so the any-text context is empty); peak RSS of the process at most 120 MB;
litellm not imported. ``next`` sends the context the default command would, so a second
figure (no target) is the same inside a generated 20-package Go module, whose outline it
collects first (``go list`` and ``go doc``, tai's go doc cache warm after the first run).
The server is the tests' fake server on 127.0.0.1; byte-code is compiled first, as an
installed package has it.
"""

from __future__ import annotations

import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks._gomodule import generate  # noqa: E402
from tests.servers import FakeModelServer, Reply  # noqa: E402

RUNS = 15
GO_PACKAGES = 20
GO_RUNS = 7


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


def configure(folder: Path, server: FakeModelServer) -> dict[str, str]:
    """Point the model ``local`` of ``folder`` at ``server``; the environment of a run."""
    Path(folder, "tai.toml").write_text(
        'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\n'
        f'model = "m"\nbase_url = "{server.base_url}"\napi_key = "k"\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("TAI_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["TAI_CONFIG_DIR"] = str(folder)
    env["XDG_CACHE_HOME"] = str(Path(folder, ".cache"))  # tai's go doc cache, not the user's
    return env


def median_ms(tai: str, cwd: str, server: FakeModelServer, runs: int) -> tuple[float, float]:
    """The median start-to-request time in ms over ``runs`` (after a warm-up), and the peak
    RSS in MB."""
    env = configure(Path(cwd), server)
    one_run(tai, cwd, env, server)  # warm-up
    measured = [one_run(tai, cwd, env, server) for _ in range(runs)]
    latency = statistics.median(seconds for seconds, _ in measured) * 1000
    return latency, max(kib for _, kib in measured) / 1024


def main() -> None:
    for folder in ("tai_core", "tai_blocks", "tai_providers", "tai_sandbox"):
        compileall.compile_dir(REPO / folder / "src", quiet=1)
    tai = str(Path(sys.executable).with_name("tai"))
    with FakeModelServer("openai") as server, tempfile.TemporaryDirectory() as cwd:
        latency, rss = median_ms(tai, cwd, server, RUNS)
        server.script(Reply(text="hi\n"))
        probe = subprocess.run(
            [sys.executable, "-X", "importtime", tai, "next", "chat", "hi"],
            cwd=cwd, env=configure(Path(cwd), server), capture_output=True, text=True,
            check=True,
        )  # fmt: skip
    with FakeModelServer("openai") as server, tempfile.TemporaryDirectory() as cwd:
        generate(Path(cwd) / "gen", GO_PACKAGES)
        go_latency, go_rss = median_ms(tai, str(Path(cwd) / "gen"), server, GO_RUNS)
        prompt = len(json.dumps(server.requests[-1].body["messages"]))
    litellm = any(line.rstrip().endswith("| litellm") for line in probe.stderr.splitlines())
    print(
        f"next_latency: start to request {latency:.0f} ms median of {RUNS}, peak RSS {rss:.0f} MB, "
        f"litellm imported: {'yes' if litellm else 'no'} (targets <= 400 ms, <= 120 MB, no); "
        f"in a {GO_PACKAGES}-package Go module {go_latency:.0f} ms median of {GO_RUNS}, "
        f"peak RSS {go_rss:.0f} MB, request {prompt // 1000} kB"
    )


if __name__ == "__main__":
    main()
