"""Goal loops on spf13/cobra with a model that fetches one symbol and then answers with a
summary, never ``done``: requests sent before the run ends (target at most 4; 40 before
loops had to make progress).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import finish
from _runs import REPO, run

sys.path.insert(0, str(REPO))
from tests.realmodules import fetch

FETCH = "I need the source first.\n\n<<琥珀 go-src\ngithub.com/spf13/cobra.Command.Execute\n琥珀\n"
TARGET = "4"
SUMMARY = "<<翡翠 summary\n- read Command.Execute; nothing to change yet\n翡翠\n"


def main() -> None:
    with tempfile.TemporaryDirectory() as temp:
        cobra = fetch("cobra", Path(temp))
        done, bodies = run(cobra, [FETCH, SUMMARY] * 20, "Explain Command.Execute")
    last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    finish(
        f"idle_loops: spf13/cobra v1.10.2, a model that never says done: {len(bodies)} "
        f"requests, exit status {done.returncode} ({last!r}); target <= 4",
        {"<= 4 requests": len(bodies) <= 4},
    )


if __name__ == "__main__":
    main()
