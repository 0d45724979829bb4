"""The first request for golang.org/x/tools (219 packages) with ``context_tokens = 128000``:
at most 128000 estimated tokens, still carrying the focus packages' documentation.

A real ``tai`` run (default focus ``./...``) against a local fake model that answers
``done``; the request the server received is measured with tai's own estimate (characters
/ 4). Without the window rule the same request was 2.8 million characters (about 700,000
tokens).
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

WINDOW = 128_000
TARGET = "128000"
REPLY = 8192
DONE = "<<翡翠 done\n- nothing to do\n翡翠\n<<琥珀 summary\n- x\n琥珀\n"


def main() -> None:
    from tai_core.models import estimate_tokens

    with tempfile.TemporaryDirectory() as temp:
        tools = fetch("tools", Path(temp))
        done, bodies = run(
            tools, [DONE], "Describe the module", "-max-loops", "1",
            context_tokens=WINDOW, max_generate_tokens=REPLY,
        )  # fmt: skip
        if not bodies:
            raise SystemExit(f"no request was sent: {done.stderr[-2000:]}")
        messages = bodies[0]["messages"]
        tokens = sum(estimate_tokens(m["content"]) for m in messages)
        user = messages[-1]["content"]
        focus = user.count("``` begin of focus package ")
        reduced = user.count("- focus package ")
    finish(
        f"first_request_tools: golang.org/x/tools v0.39.0 first request {tokens} estimated "
        f"tokens ({sum(len(m['content']) for m in messages)} characters) for a window of "
        f"{WINDOW} less {REPLY} for the reply; {focus} focus packages, {reduced} of them "
        f"shown at a lower level (a count, not a timing); target <= {WINDOW}",
        {f"<= {WINDOW} tokens": tokens <= WINDOW},
    )


if __name__ == "__main__":
    main()
