"""`tai ping` as a user runs it: a real `tai` subprocess against the fake OpenAI-compatible
server — a model that passes the exam, one that answers wrongly, one that fails."""

from __future__ import annotations

import random
import socket
from pathlib import Path

import pytest

from tai_core.blocks import FORMAT_SYSTEM_PROMPT
from tai_core.commands._ping_exam import ExamBlock, exam_prompt, make_exam
from tests.conftest import run_tai
from tests.servers import FakeModelServer, Reply

SEED = 7
DELIMITERS = ("琥珀", "松柏", "紫藤")


def exam() -> tuple[ExamBlock, ...]:
    return make_exam(random.Random(SEED))


def answer(blocks: tuple[ExamBlock, ...]) -> str:
    return "".join(
        f"<<{delimiter} {block.header()}\n{block.body}\n{delimiter}\n"
        for delimiter, block in zip(DELIMITERS, blocks, strict=True)
    )


def configure(tmp_path: Path, base_url: str) -> None:
    """The model ``local`` at ``base_url``; its failures are repeated (three times, as
    by default) at once."""
    (tmp_path / "tai.toml").write_text(
        f'[[generators]]\nname = "local"\ntype = "openai"\nmodel = "qwen"\n'
        f'base_url = "{base_url}"\napi_key = "sk-test"\nretry_delay = 0.01\n',
        encoding="utf-8",
    )


def ping(tmp_path: Path, env: dict[str, str], *flags: str):
    return run_tai("ping", "-model", "local", "-seed", str(SEED), *flags, cwd=tmp_path, env=env)


def test_a_model_that_writes_the_blocks_passes(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    configure(tmp_path, openai_server.base_url)
    openai_server.script(Reply(text="Here they are.\n" + answer(exam()), chunks=7))
    result = ping(tmp_path, isolated_env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ping ok: local answered in ")
    assert result.stdout.endswith(" s\n")
    assert result.stderr == ""
    (request,) = openai_server.requests
    messages = request.body["messages"]
    assert messages[0] == {"role": "system", "content": FORMAT_SYSTEM_PROMPT}
    assert messages[-1]["content"] == exam_prompt(exam())


def test_the_seed_picks_the_exam(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    configure(tmp_path, openai_server.base_url)
    openai_server.script(Reply(text=answer(exam())), Reply(text=answer(exam())))
    assert ping(tmp_path, isolated_env).returncode == 0
    assert ping(tmp_path, isolated_env, "--seed", "8").returncode == 1
    first, second = (r.body["messages"][-1]["content"] for r in openai_server.requests)
    assert first == exam_prompt(exam()) != second


@pytest.mark.parametrize(
    ("mistake", "expected"),
    [
        ("swap", "block 1: expected "),
        ("two", "expected 3 blocks, found 2"),
        ("prose", "expected 3 blocks, found 0"),
    ],
)
def test_a_wrong_answer_fails_with_one_line(
    tmp_path: Path,
    isolated_env: dict[str, str],
    openai_server: FakeModelServer,
    mistake: str,
    expected: str,
) -> None:
    configure(tmp_path, openai_server.base_url)
    blocks = exam()
    text = {
        "swap": answer((blocks[1], blocks[0], blocks[2])),
        "two": answer(blocks).rsplit("<<", 1)[0],
        "prose": "I cannot write blocks.",
    }[mistake]
    openai_server.script(Reply(text=text))
    result = ping(tmp_path, isolated_env)
    assert result.returncode == 1
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"tai: error: ping failed: local: {expected}")
    if mistake == "swap":
        assert f"expected {blocks[0].header()}" in line and f"found {blocks[1].header()}" in line


def test_transient_errors_are_retried(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    configure(tmp_path, openai_server.base_url)
    openai_server.script(Reply(fault="500"), Reply(text=answer(exam())))
    result = ping(tmp_path, isolated_env)
    assert result.returncode == 0, result.stderr
    assert len(openai_server.requests) == 2


def test_a_failing_server_fails_with_the_provider_error(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    configure(tmp_path, openai_server.base_url)
    openai_server.script(*[Reply(fault="500", message="the model is down")] * 4)
    result = ping(tmp_path, isolated_env)
    assert result.returncode == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith("tai: error: ping failed: local: ") and "500" in line
    assert "the model is down" in line
    assert len(openai_server.requests) == 4  # every attempt of the retry policy


def test_an_unreachable_model_fails(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    configure(tmp_path, f"http://127.0.0.1:{port}/v1")
    result = ping(tmp_path, isolated_env)
    assert result.returncode == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith("tai: error: ping failed: local: ")


def test_a_model_is_needed(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    result = run_tai("ping", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 2
    assert "no model: give -model NAME" in result.stderr
