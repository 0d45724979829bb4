"""The distributions as users install them: tai-core alone, a minimal set of plugins, and
third-party plugins.

Each test builds a fresh virtual environment with uv from the repository's folders, so
what is checked is the packaging (dependencies, entry points), not this checkout's
environment.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO, uv_executable

pytestmark = pytest.mark.slow

NOTE_REPLY = """\
I saw something worth telling you.

<<紫藤 note(topic="follow-up")
fetch.go ignores context cancellation in its retry loop.
紫藤

<<松柏 note(topic="")
<<松柏 note
nested same-delimiter block: part of the body
松柏
松柏
"""


def make_env(tmp_path: Path, *folders: str) -> Path:
    """A new virtual environment holding exactly ``folders`` (and their dependencies)."""
    venv = tmp_path / "venv"
    uv = uv_executable()
    subprocess.run([uv, "venv", "-q", str(venv), "--python", sys.executable], check=True)
    subprocess.run(
        [uv, "pip", "install", "-q", "--python", str(venv / "bin" / "python"),
         *(str(REPO / folder) for folder in folders)],
        check=True,
    )  # fmt: skip
    return venv / "bin"


def run(bin_dir: Path, *args: str, cwd: Path, stdin: str | None = None, **variables: str):
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(cwd), "TAI_CONFIG_DIR": str(cwd),
           **variables}  # fmt: skip
    return subprocess.run(
        [str(bin_dir / args[0]), *args[1:]],
        cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_tai_core_runs_alone(tmp_path: Path) -> None:
    bin_dir = make_env(tmp_path, "tai_core")
    for other in ("tai_kind_shell", "tai_provider_openai", "tai_sandbox", "tai_block_kit"):
        probe = run(bin_dir, "python", "-c", f"import {other}", cwd=tmp_path)
        assert probe.returncode != 0, f"{other} should not be installed"
    result = run(bin_dir, "tai", "plugins", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "No block kinds are installed" in result.stdout
    assert "No providers are installed" in result.stdout
    document = json.loads(run(bin_dir, "tai", "plugins", "--json", cwd=tmp_path).stdout)
    assert [plugin["name"] for plugin in document["plugins"]] == ["tai-core"]
    assert document["block_kinds"] == [] and document["providers"] == []
    parsed = run(bin_dir, "tai", "parse", "-", cwd=tmp_path, stdin="<<紫藤 shell\nls\n紫藤\n")
    assert parsed.returncode == 0
    assert "shell — unknown kind" in parsed.stdout


SHELL_REPLY = """\
I will look first.

<<紫藤 shell
printf 'ran inside %s\\n' "$TAI_IN_SANDBOX" > proof.txt && cat proof.txt
紫藤
"""


def test_a_minimal_set_is_a_working_tool(tmp_path: Path) -> None:
    """``uv pip install tai-core tai-kind-shell tai-provider-openai`` (the workspace's
    folders of those three, nothing else named): the shell kind brings its sandbox and its
    kit, the provider its HTTP kit, and nothing pulls tree-sitter-go or litellm; a real
    session then runs a shell block from a local OpenAI-compatible server, sandboxed, and
    feeds its output back."""
    from tests.servers import FakeModelServer, Reply

    bin_dir = make_env(tmp_path, "tai_core", "plugins/tai-kind-shell",
                       "plugins/tai-provider-openai")  # fmt: skip
    absent = run(bin_dir, "python", "-c", (
        "import importlib.util as u; print(' '.join(m for m in ('tree_sitter_go', 'litellm', "
        "'tai_changes', 'tai_go', 'tai_kind_change', 'tai_provider_gemini') if u.find_spec(m)))"
    ), cwd=tmp_path)  # fmt: skip
    assert absent.returncode == 0 and absent.stdout == "\n", absent.stdout + absent.stderr
    listing = json.loads(run(bin_dir, "tai", "plugins", "--json", cwd=tmp_path).stdout)
    assert listing["block_kinds"] == ["shell"]
    assert listing["providers"] == ["openai"]
    work = tmp_path / "work"
    work.mkdir()
    with FakeModelServer("openai") as server:
        server.script(Reply(text=SHELL_REPLY), Reply(text="It printed what it wrote.\n"))
        (work / "tai.toml").write_text(
            'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\n'
            f'model = "m"\nbase_url = "{server.base_url}"\napi_key = "k"\n'
        )
        result = run(bin_dir, "tai", "-shell", "chat", "What is in proof.txt?", cwd=work)
        requests = list(server.requests)
    assert result.returncode == 0, result.stderr
    assert "tai: note: no context provider serves this directory" in result.stderr
    assert (work / "proof.txt").read_text() == "ran inside 1\n"  # by the sandbox's shell
    assert len(requests) == 2
    fed_back = requests[1].body["messages"][-1]["content"]
    assert "ran inside 1" in fed_back


def test_third_party_kind_is_installed_listed_and_parsed(tmp_path: Path) -> None:
    bin_dir = make_env(tmp_path, "tai_core", "families/tai-blocks", "examples/tai-note")
    listing = run(bin_dir, "tai", "plugins", cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    assert re.search(r"^note +tai-note 1\.0\.0 +block kinds: note$", listing.stdout, re.M)
    assert "Block kinds (16):" in listing.stdout

    parsed = run(bin_dir, "tai", "parse", "--json", "-", cwd=tmp_path, stdin=NOTE_REPLY)
    first, second = json.loads(parsed.stdout)["results"]
    assert first["status"] == "ok"
    assert first["params"] == {"topic": "follow-up"}
    assert first["body"] == "fetch.go ignores context cancellation in its retry loop."
    assert second["status"] == "invalid"
    assert second["body"].startswith("<<松柏 note\nnested")
    assert second["problems"] == ["note blocks need the parameter 'topic' (not empty)"]
    assert parsed.returncode == 1


def test_third_party_kind_runs_through_the_hooks(tmp_path: Path) -> None:
    bin_dir = make_env(tmp_path, "tai_core", "examples/tai-note")
    script = """
import pathlib, sys
from tai_core import PluginHost, parse_blocks
host = PluginHost(); host.load_entry_points()
(block,) = parse_blocks('<<紫藤 note(topic="risk")\\nno tests for the parser\\n紫藤')
class Context:
    cwd = pathlib.Path('.').resolve(); command = 'go'; config = {}
kind = host.registry.block_kinds['note']
result = host.pm.hook.tai_run_block(block=block, kind=kind, context=Context())
print(result.ok, result.text)
"""
    result = run(bin_dir, "python", "-c", script, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "True Note filed in NOTES.md.\n"
    assert (tmp_path / "NOTES.md").read_text() == "## risk\n\nno tests for the parser\n\n"


def test_the_example_provider_and_context_provider_in_a_real_run(tmp_path: Path) -> None:
    """tai-core, tai-blocks and the two example distributions in a fresh environment: `tai
    next` speaks Ollama's native protocol through tai-ollama-chat, with tai-changelog's
    part (configured in tai.toml) beside the text files the `any` provider sends."""
    from tests.servers import FakeModelServer, Reply

    bin_dir = make_env(tmp_path, "tai_core", "families/tai-blocks", "examples/tai-ollama-chat",
                       "examples/tai-changelog")  # fmt: skip
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.md").write_text("Deploys happen on Fridays.\n")
    (work / "CHANGES.md").write_text("## 2.0\n- Dropped Python 3.9.\n")
    with FakeModelServer("ollama") as server:
        server.script(Reply(text="Python 3.9 was dropped in 2.0.\n", thoughts="Read it."))
        (work / "tai.toml").write_text(
            'model = "local"\n[[generators]]\nname = "local"\ntype = "ollama-chat"\n'
            f'model = "qwen3"\nbase_url = "{server.root_url}"\nkeep_alive = "5m"\n\n'
            '[plugins.changelog]\nfile = "CHANGES.md"\n'
        )
        listing = run(bin_dir, "tai", "plugins", cwd=work)
        assert listing.returncode == 0, listing.stderr
        assert re.search(
            r"^changelog +tai-changelog 1\.0\.0 +context providers: changelog; "
            r"settings \[plugins.changelog\]: file, max_bytes$",
            listing.stdout,
            re.M,
        )
        answer = run(bin_dir, "tai", "next", "chat", "What changed?", cwd=work,
                     TAI_NO_SANDBOX="1")  # fmt: skip
        assert answer.returncode == 0, answer.stderr
        assert answer.stdout == "Python 3.9 was dropped in 2.0.\n"
        (request,) = server.requests
    assert request.path == "/api/chat" and request.body["keep_alive"] == "5m"
    sent = "\n".join(message["content"] for message in request.body["messages"])
    assert "begin of changelog CHANGES.md\n## 2.0\n- Dropped Python 3.9." in sent
    assert "Deploys happen on Fridays." in sent
