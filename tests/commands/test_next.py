"""`tai next` as a user runs it: a real subprocess against the fake OpenAI-compatible server.

The request carries the context the default command would send in the same directory —
the Go outline inside a Go module, the text files elsewhere, the ``-file`` files, secrets
withheld — and its system prompt names what was sent, and nothing else.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_tai, tai_executable
from tests.go.conftest import BASIC, write
from tests.servers import FakeModelServer, Reply

#: A credential the content rule knows (an AWS access key id), split so this file has none.
AWS_KEY = "AKIA" + "IOSFODNN7EXAMPLE"


def configure(folder: Path, server: FakeModelServer) -> None:
    """A ``tai.toml`` in ``folder`` that points the model ``local`` at ``server``, whose
    failures are repeated at once (the default waits are for a real service)."""
    (folder / "tai.toml").write_text(
        'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\n'
        f'model = "qwen3-coder"\nbase_url = "{server.base_url}"\napi_key = "sk-test"\n'
        "read_timeout = 2.0\nretry_delay = 0.01\n"
    )


@pytest.fixture
def project(tmp_path: Path, openai_server: FakeModelServer) -> Path:
    """A directory outside any Go module (apart from the test's config and data)."""
    folder = tmp_path / "project"
    folder.mkdir()
    configure(folder, openai_server)
    (folder / "notes.md").write_text("The deploy key rotates on Mondays.\n")
    return folder


@pytest.fixture
def module(tmp_path: Path, openai_server: FakeModelServer) -> Path:
    folder = write(tmp_path / "module", BASIC)
    configure(folder, openai_server)
    return folder


def sent(server: FakeModelServer) -> tuple[str, str]:
    """The system prompt and the user message of the one request ``server`` received."""
    (request,) = server.requests
    messages = request.body["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    return messages[0]["content"], messages[1]["content"]


def ask(folder: Path, server: FakeModelServer, env: dict[str, str], *args: str) -> None:
    server.script(Reply(text="An answer.\n"))
    result = run_tai("next", *args, "chat", "What does this project do?", cwd=folder, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "An answer.\n"


def test_inside_a_go_module_the_request_carries_the_focus_outline(
    module: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    ask(module, openai_server, isolated_env)
    system, user = sent(openai_server)
    assert "begin of focus package example.com/m/a" in user
    assert "Parse parses s." in user and "func helper() string" in user  # go doc -all -u
    assert "- BenchmarkParse\n- FuzzParse\n- TestParse\n" in user
    assert "begin of focus file" not in user  # the outline, not the sources
    assert "outline of the Go project below" in system
    assert "documentation, not the implementation" in system
    assert "files named for this task" not in system and "text files of" not in system
    # the outline offers go-src and ingest blocks, which next cannot run: the prompt says so
    assert "fetch Go declarations with go-src blocks" in user
    assert "- go-src: " in system and "- ingest: " in system
    assert "where the context suggests one" in system


def test_the_context_of_next_fits_the_models_window(
    tmp_path: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    from tai_core.models import estimate_tokens

    files = {f"p{i}/p.go": f"// Package p{i} is number {i}.\npackage p{i}\n\n" + "".join(
        f"// F{n} is function {n} of package {i}, documented at some length.\nfunc F{n}() {{}}\n\n"
        for n in range(80)
    ) for i in range(8)}  # fmt: skip
    folder = write(tmp_path / "wide", {"go.mod": "module example.com/w\n\ngo 1.22\n", **files})
    configure(folder, openai_server)
    with (folder / "tai.toml").open("a") as config:
        config.write("context_tokens = 9000\nmax_generate_tokens = 1000\n")
    ask(folder, openai_server, isolated_env)
    system, user = sent(openai_server)
    assert estimate_tokens(system) + estimate_tokens(user) <= 8000
    assert "To fit the model's window, this context shows less than it would:" in user
    assert "begin of focus package example.com/w/p0" in user


def test_outside_a_go_module_the_request_carries_the_text_files(
    project: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    ask(project, openai_server, isolated_env)
    system, user = sent(openai_server)
    assert "begin of file notes.md\nThe deploy key rotates on Mondays." in user
    assert "text files of the working directory below" in system
    assert "Go project" not in system and "files named for this task" not in system


@pytest.mark.slow
def test_file_is_sent_once_and_named_in_the_prompt(
    module: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    ask(module, openai_server, isolated_env, "-file", "a/notes.txt")
    system, user = sent(openai_server)
    assert "begin of file a/notes.txt\nnotes of a\n``` end of file a/notes.txt" in user
    assert user.index("begin of focus package") < user.index("begin of file a/notes.txt")
    assert "outline of the Go project below" in system
    assert "the files named for this task below" in system
    # outside a module the provider shows notes.md too: the named file is sent once
    openai_server.requests.clear()
    project = module.parent / "plain"
    project.mkdir()
    configure(project, openai_server)
    (project / "notes.md").write_text("Mondays.\n")
    ask(project, openai_server, isolated_env, "-file", "notes.md")
    assert sent(openai_server)[1].count("Mondays.") == 1


def test_secret_files_are_withheld_and_named(
    project: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    (project / "deploy.txt").write_text(f"aws_access_key_id = {AWS_KEY}\n")
    (project / "server.pem").write_text("-----BEGIN CERTIFICATE-----\nx\n")
    ask(project, openai_server, isolated_env, "-file", "*.txt")
    system, user = sent(openai_server)
    assert AWS_KEY not in user and "BEGIN CERTIFICATE" not in user
    assert "sk-test" not in user  # tai.toml is withheld by name (it may hold api_key)
    closing = user.split("withheld", 1)[1]
    assert "deploy.txt" in closing and "server.pem" in closing and "tai.toml" in closing
    assert "The deploy key rotates on Mondays." in user
    # the only file -file matched is withheld, so the prompt names no named files
    assert "files named for this task" not in system


def test_without_any_context_the_prompt_speaks_of_no_files(
    tmp_path: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    configure(Path(isolated_env["TAI_CONFIG_DIR"]), openai_server)
    empty = tmp_path / "empty"
    empty.mkdir()
    ask(empty, openai_server, isolated_env)
    system, user = sent(openai_server)
    assert "no files or documentation come with it" in system
    assert "below" not in system and "above" not in user
    assert "begin of" not in user and "working directory" not in user


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
    openai_server.script(Reply(text=change))
    result = run_tai("next", "chat", "rewrite notes.md", cwd=project, env=isolated_env)
    assert result.returncode == 0, result.stderr
    assert (project / "notes.md").read_text() == "The deploy key rotates on Mondays.\n"
    # discarded, as the prompt says, with no new round; the user is told
    assert len(openai_server.requests) == 1
    assert "change blocks are disabled in this command; it was discarded" in result.stderr


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
    assert result.returncode == 2
    assert "unknown model 'nope'" in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_chat_word_is_a_usage_error(project: Path, isolated_env: dict[str, str]) -> None:
    result = run_tai("next", "hello", cwd=project, env=isolated_env)
    assert result.returncode == 2
    assert result.stderr == (
        "tai: error: unexpected 'hello': the task follows the word chat: tai next chat \"hello\"\n"
    )


def test_ctrl_c_stops_the_stream(
    project: Path, openai_server: FakeModelServer, isolated_env: dict[str, str]
) -> None:
    # The stream stalls until the client hangs up: only the cancel can end tai.
    openai_server.script(Reply(text="first half ... second half", chunks=2, fault="stall"))
    process = subprocess.Popen(
        [tai_executable(), "next", "chat", "hi"], cwd=project, env=isolated_env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    first = process.stdout.read(5)  # the first piece arrived: the stream is open and stalled
    assert first == "first"
    process.send_signal(signal.SIGINT)
    process.wait(timeout=20)  # a hang guard
    assert process.returncode == 130
    assert "cancelled" in process.stderr.read()


def test_the_openai_path_imports_neither_litellm_nor_httpx(
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
    assert "LITELLM=False HTTPX=False" in result.stderr  # h11 speaks for it (._transport)
