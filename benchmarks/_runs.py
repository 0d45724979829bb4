"""Real ``tai`` runs against the tests' fake OpenAI-compatible server, for the benchmarks
that count requests (not a benchmark itself).

``run(cwd, replies, task, *flags, **generator)`` writes a ``tai.toml`` naming the server as
the model (``generator`` adds fields to its ``[[generators]]`` entry), runs ``tai`` in
``cwd`` with a private configuration and data directory, removes the file again and
returns the finished process and the request bodies the server received.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.servers import FakeModelServer, Reply  # noqa: E402


def run(
    cwd: Path, replies: list[str], task: str, *flags: str, **generator: Any
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """One ``tai [FLAGS] chat TASK`` run in ``cwd`` against the scripted ``replies``."""
    tai = str(Path(sys.executable).with_name("tai"))
    fields = "".join(f"{key} = {value!r}\n" for key, value in generator.items())
    with FakeModelServer("openai") as server, tempfile.TemporaryDirectory() as home:
        server.script(*(Reply(text=text) for text in replies))
        config = cwd / "tai.toml"
        config.write_text(
            'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\n'
            f'model = "coder"\nbase_url = "{server.base_url}"\napi_key = "sk-bench"\n{fields}'
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("TAI_")}
        env |= {"TAI_CONFIG_DIR": home, "TAI_DATA_DIR": home}
        try:
            done = subprocess.run(
                [tai, *flags, "chat", task], cwd=cwd, env=env, capture_output=True, text=True,
                timeout=900, check=False,
            )  # fmt: skip
        finally:
            config.unlink()
        return done, [request.body for request in server.requests]
