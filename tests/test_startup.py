"""Fast start: `tai --help` and `tai plugins` import no provider SDK and nothing heavy.

Checks the modules actually loaded (``sys.modules`` at exit), not the time; the time is a
benchmark (benchmarks/startup.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = (
    "litellm", "openai", "anthropic", "httpx", "httpcore", "google", "boto3", "botocore",
    "tiktoken", "tokenizers", "prompt_toolkit", "pydantic", "tree_sitter", "aiohttp",
    "requests", "asyncio", "sqlite3", "tomllib",
)  # fmt: skip


PROBE = """
import atexit, json, sys
atexit.register(lambda: sys.stderr.write("MODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
from tai_core.cli import main
main({args!r})
"""


def imported_modules(args: list[str], cwd: Path, env: dict[str, str]) -> set[str]:
    """Every module loaded by the time ``tai ARGS`` exits."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args)],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("MODULES ")]
    return set(json.loads(line.removeprefix("MODULES ")))


@pytest.mark.parametrize("args", [["--help"], ["plugins"], ["plugins", "--json"]])
def test_no_heavy_imports(args: list[str], tmp_path: Path, isolated_env: dict[str, str]) -> None:
    modules = imported_modules(args, tmp_path, isolated_env)
    assert "tai_blocks.kinds.shell" in modules  # plugins were loaded
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert heavy == []
