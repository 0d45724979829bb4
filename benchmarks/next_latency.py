"""From process start to the request at the model: `tai next -model local chat hi`.

Targets: median at most 15 times the bare interpreter's start from starting the process to
the local OpenAI-compatible server receiving the request, with at most 250 modules
imported by then, in a directory outside any Go module that holds only the configuration
(so the any-text context is empty); peak RSS of the process at most 120 MB; litellm not
imported. ``next`` sends the context the default command would, so a second figure (no
target) is the same inside a generated 20-package Go module, whose outline it collects
first (``go list`` and ``go doc``; tai's cache of its own, warm after the warm-up run, and
Go's build cache the user's).

Method: tai as users install it — the checkout's distributions built as wheels into an
environment of the benchmark's own, byte-code compiled (``_procs.install``); the same
first figure of the checkout's development environment is given beside it (its editable
sources put some fifty directories on ``sys.path``, which every import of a tai package
searches: no target). The server is the tests' fake server in a process of its own
(``_server.py``), which reports each request's arrival on the system's monotonic clock.
Baseline, alternated with every run: the bare interpreter of the same environment
(``python -c pass``), start to exit. 15 rounds (7 in the Go module) after a warm-up round;
medians (min-max), and the ratio to the bare interpreter round by round.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gomodule import generate
from _procs import BARE, TAI, compile_sources, environment, install, run
from _report import finish
from _server import Served
from _timing import Series, alternate, ratio, timed

RUNS = 15
GO_PACKAGES = 20
GO_RUNS = 7
TARGET = "15x python -c pass, 250 modules, 120 MB"
RATIO = 15.0
MODULES = 250

#: The console script's run, which says how many modules were imported when the first
#: connection was made (the request leaving) and whether litellm was imported at all.
PROBE = """
import atexit, sys
def at_connect(event, args):
    if event == "socket.connect" and not at_connect.seen:
        at_connect.seen = len(sys.modules)
at_connect.seen = 0
sys.addaudithook(at_connect)
atexit.register(lambda: sys.stderr.write(
    f"MODULES {at_connect.seen} {int('litellm' in sys.modules)}\\n"))
sys.argv = ["tai", "next", "chat", "hi"]
from tai_core.cli import launch
launch()
"""


def one_run(tai: str, cwd: Path, env: dict[str, str], server: Served, *, rss: list[float],
            size: list[int]) -> float:  # fmt: skip
    """Seconds until the request of ``tai`` arrived; the peak RSS (MB) is appended to
    ``rss``, the characters of the request's messages to ``size``."""
    start = time.monotonic()
    process = subprocess.Popen(
        [tai, "next", "chat", "hi"], cwd=cwd, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    arrived, characters = server.next_arrival()
    size.append(characters)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("tai next failed")
    rss.append(usage.ru_maxrss / 1024)
    return arrived - start


def configure(folder: Path, server: Served) -> dict[str, str]:
    """Point the model ``local`` of ``folder`` at ``server``; the environment of a run,
    whose tai directories (configuration, data, cache) lie beside ``folder``, not in it,
    as a user's do: inside, they would be part of the context the run sends."""
    Path(folder, "tai.toml").write_text(
        'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\n'
        f'model = "m"\nbase_url = "{server.base_url}"\napi_key = "k"\n'
    )
    return environment(folder.parent / f"{folder.name}.home")


def measure(cwd: Path, server: Served, runs: int, tai: str = TAI,
            bare: list[str] = BARE) -> tuple[Series, Series, float, int]:  # fmt: skip
    """The start-to-request times of ``tai``, the ratios to the bare interpreter, the peak
    RSS (MB) and the request's characters, all after the warm-up run (which may build
    tai's go doc helper)."""
    env = configure(cwd, server)
    rss: list[float] = []
    size: list[int] = []
    times = alternate(
        {
            "next": lambda: one_run(tai, cwd, env, server, rss=rss, size=size),
            "bare": lambda: timed(lambda: run(bare, env, cwd)),
        },
        runs,
    )
    return times["next"], ratio(times["next"], times["bare"]), max(rss[1:]), size[-1]


def main() -> None:
    compile_sources()
    with Served(report=True, text="hi\n") as server, tempfile.TemporaryDirectory() as temp:
        tai, bare = install(Path(temp) / "installed")
        cwd = Path(temp) / "work"
        cwd.mkdir()
        latency, over_bare, rss, _ = measure(cwd, server, RUNS, tai, bare)
        checkout, checkout_over_bare, _, _ = measure(cwd, server, RUNS)
        probe = subprocess.Popen(
            [bare[0], "-c", PROBE], cwd=cwd, env=configure(cwd, server),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        server.next_arrival()
        (counts,) = [line.split()[1:] for line in probe.communicate()[1].splitlines()
                     if line.startswith("MODULES ")]  # fmt: skip
        modules, litellm = int(counts[0]), counts[1] == "1"
        root = generate(cwd / "gen", GO_PACKAGES)
        go_latency, go_over_bare, go_rss, request = measure(root, server, GO_RUNS, tai, bare)
    finish(
        f"next_latency: installed, start to request {latency.text()} = "
        f"{over_bare.text('x', 1)} the bare interpreter (the checkout's editable environment: "
        f"{checkout.text()} = {checkout_over_bare.text('x', 1)}), {modules} modules imported "
        f"when the request leaves, peak RSS "
        f"{rss:.0f} MB, litellm imported: {'yes' if litellm else 'no'}; "
        f"in a {GO_PACKAGES}-package Go module {go_latency.text()} = "
        f"{go_over_bare.text('x', 1)}, peak RSS {go_rss:.0f} MB, request {request // 1000} kB; "
        f"medians (min-max) of {RUNS} "
        f"and {GO_RUNS} rounds alternated with python -c pass; targets <= {RATIO:g}x, <= "
        f"{MODULES} modules, <= 120 MB, no litellm",
        {
            f"<= {RATIO:g}x": over_bare.median <= RATIO,
            f"<= {MODULES} modules": modules <= MODULES,
            "<= 120 MB": rss <= 120,
            "no litellm": not litellm,
        },
    )


if __name__ == "__main__":
    main()
