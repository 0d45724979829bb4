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


#: The modules loaded when the first connection is made (the model's request leaves).
PROBE_AT_REQUEST = """
import json, sys
def at_connect(event, args):
    if event == "socket.connect" and not getattr(at_connect, "seen", False):
        at_connect.seen = True
        sys.stderr.write("MODULES " + json.dumps(sorted(list(sys.modules))) + "\\n")
sys.addaudithook(at_connect)
from tai_core.cli import main
main({args!r})
"""


def imported_modules(
    args: list[str], cwd: Path, env: dict[str, str], probe: str = PROBE
) -> set[str]:
    """Every module loaded by the time ``tai ARGS`` exits (by the time the first
    connection is made, with ``PROBE_AT_REQUEST``)."""
    result = subprocess.run(
        [sys.executable, "-c", probe.format(args=args)],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("MODULES ")]
    return set(json.loads(line.removeprefix("MODULES ")))


@pytest.mark.parametrize("args", [["--help"], ["plugins"], ["plugins", "--json"]])
def test_no_heavy_imports(args: list[str], tmp_path: Path, isolated_env: dict[str, str]) -> None:
    modules = imported_modules(args, tmp_path, isolated_env)
    assert "tai_kind_shell" in modules  # plugins were loaded
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY)
    assert heavy == []


#: What the request path of ``tai next`` (the default command's context, up to the moment
#: its OpenAI-style request leaves) does not use: other providers' SDKs, tokenizers,
#: terminal UIs, the records and sessions databases (a session is first saved when its
#: turn has ended), code parsers, and the HTTP clients other than h11 (httpx and what it
#: brings: httpcore, anyio, h2; ``ingest``'s web fetches use it, a model call does not),
#: and the standard library's parts for rarer work: ``email`` (an HTTP date in
#: ``Retry-After``), ``tempfile`` (writing tai's own files), ``difflib`` (near names of a
#: mistake), ``importlib.resources`` (skills a package ships). A name is a package with
#: its modules, or one module.
NOT_ON_THE_REQUEST_PATH = (
    "litellm", "openai", "anthropic", "google", "boto3", "botocore", "tiktoken",
    "tokenizers", "prompt_toolkit", "textual", "rich", "pygments", "pydantic", "sqlite3",
    "tree_sitter", "tree_sitter_bash", "tree_sitter_go", "aiohttp", "requests", "httpx",
    "httpcore", "anyio", "h2", "certifi", "urllib.request", "email", "tempfile", "difflib",
    "importlib.resources", "shlex",
)  # fmt: skip


#: The modules of the commands other than ``next`` (each is imported when it runs:
#: :class:`tai_core.cli.LazyCommand`).
OTHER_COMMANDS = frozenset({
    "tai_core.commands.ai", "tai_core.commands.code", "tai_core.commands.parse",
    "tai_core.commands.ping", "tai_core.commands.plugins", "tai_core.commands.record",
    "tai_core.commands.sessions", "tai_core.serve._command", "tai_checkpoints._commands",
    "tai_changes._patch", "tai_web._command",
})  # fmt: skip


def test_the_request_path_of_next_imports_only_what_it_uses(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    from tests.commands.test_next import configure
    from tests.servers import FakeModelServer, Reply

    with FakeModelServer("openai") as server:
        server.script(Reply(text="hello\n"))
        configure(tmp_path, server)
        modules = imported_modules(["next", "chat", "hi"], tmp_path, isolated_env, PROBE_AT_REQUEST)
        assert server.requests, "no request reached the model"
    assert "h11" in modules  # the request went the way this test means
    unneeded = sorted(
        m for m in modules
        if m.split(".")[0] in NOT_ON_THE_REQUEST_PATH or m in NOT_ON_THE_REQUEST_PATH
    )  # fmt: skip
    assert unneeded == []
    other_commands = sorted(modules & OTHER_COMMANDS)
    assert other_commands == []
