"""The embedding example of docs/embedding.md runs as the document shows it."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def test_the_embedding_example_runs_as_documented(isolated_env: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "examples/embedding/chat.py", "replay:examples/embedding/replies.txt"],
        cwd=REPO, env=isolated_env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    document = (REPO / "docs" / "embedding.md").read_text()
    shown = document.split("```console\n")[1].split("```")[0]
    command = "$ python examples/embedding/chat.py replay:examples/embedding/replies.txt\n"
    assert (command + done.stdout).rstrip("\n") == shown.rstrip("\n")
