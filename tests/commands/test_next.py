"""`tai next` as a user runs it: a real subprocess against the fake OpenAI-compatible server."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import run_tai, tai_executable
from tests.servers import FakeModelServer, Reply


@pytest.fixture
def project(tmp_path: Path, openai_server: FakeModelServer) -> Path:
    (tmp_path / "tai.toml").write_text(
        'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\n'
        f'model = "qwen3-coder"\nbase_url = "{openai_server.base_url}"\napi_key = "sk-test"\n'
        "read_timeout = 2.0\n"
    )
    (tmp_path / "notes.md").write_text("The deploy key rotates on Mondays.\n")
    return tmp_path


def test_answers_on_stdout_with_usage_on_stderr(
    project: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    openai_server.script(Reply(text="It rotates on Mondays.\n", usage={"input": 300, "output": 7}))
    result = run_tai(
        "next", "-file", "notes.md", "chat", "When does the key rotate?",
        cwd=project, env=isolated_env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == "It rotates on Mondays.\n"
    assert "total" in result.stderr and "300" in result.stderr
    (request,) = openai_server.requests
    prompt = json.dumps(request.body["messages"])
    assert "The deploy key rotates on Mondays." in prompt
    assert "When does the key rotate?" in prompt
    assert request.body["model"] == "qwen3-coder"


def test_changes_nothing_on_disk(
    project: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    change = '<<紫藤 change(op="WRITE", file-path="notes.md")\nhacked\n紫藤\n'
    openai_server.script(Reply(text=change), Reply(text="Sorry: as text, the key rotates Mondays."))
    result = run_tai("next", "chat", "rewrite notes.md", cwd=project, env=isolated_env)
    assert result.returncode == 0, result.stderr
    assert (project / "notes.md").read_text() == "The deploy key rotates on Mondays.\n"
    second = json.dumps(openai_server.requests[1].body["messages"])
    assert "change blocks are disabled in this command" in second


def test_provider_failure_is_one_line_and_exit_1(
    project: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    openai_server.script(*[Reply(fault="500", message="upstream exploded")] * 4)
    result = run_tai("next", "chat", "hi", cwd=project, env=isolated_env)
    assert result.returncode == 1
    (error,) = [line for line in result.stderr.splitlines() if line.startswith("tai: error:")]
    assert "openai" in error and "qwen3-coder" in error and "500" in error
    assert "upstream exploded" in error
    assert "Traceback" not in result.stderr


def test_unknown_model_is_a_clear_usage_error(project: Path, isolated_env: dict[str, str]) -> None:
    result = run_tai("next", "-model", "nope", "chat", "hi", cwd=project, env=isolated_env)
    assert result.returncode != 0
    assert "unknown model 'nope'" in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_chat_word_is_a_usage_error(project: Path, isolated_env: dict[str, str]) -> None:
    result = run_tai("next", "hello", cwd=project, env=isolated_env)
    assert result.returncode == 2
    assert "the task text follows the word chat" in result.stderr


def test_ctrl_c_stops_the_stream_quickly(
    project: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    openai_server.script(
        Reply(text="first half ... second half", chunks=2, fault="stall", stall=30)
    )
    process = subprocess.Popen(
        [tai_executable(), "next", "chat", "hi"], cwd=project, env=isolated_env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    first = process.stdout.read(5)  # the first piece arrived: the stream is open and stalled
    assert first == "first"
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    process.wait(timeout=10)
    elapsed = time.monotonic() - sent
    assert process.returncode == 130
    assert "cancelled" in process.stderr.read()
    assert elapsed < 1.0  # the benchmark-free bound: well under the stall, not a timing test


def test_the_openai_path_never_imports_litellm(
    project: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    openai_server.script(Reply(text="hello\n"))
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('LITELLM=%s HTTPX=%s\\n' % "
        "('litellm' in sys.modules, 'httpx' in sys.modules)))\n"
        "from tai_core.cli import main\n"
        "main(['next', 'chat', 'hi'])\n"
    )
    result = subprocess.run(
        [str(Path(tai_executable()).with_name("python")), "-c", probe],
        cwd=project, env=isolated_env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "LITELLM=False HTTPX=True" in result.stderr
