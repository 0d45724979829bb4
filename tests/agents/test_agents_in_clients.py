"""Agent commands as users invoke them: `tai ai -agent NAME "…"`, `/NAME …` typed in a
chat, and `{"type": "command"}` in `tai serve -stdio` — real subprocesses against a local
model server; a project's own agent file included."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agents.test_agents_plugin import agent_file
from tests.commands.test_ai import ai, chat_dir, contents, system_of
from tests.conftest import as_sent, run_tai
from tests.serve.test_serve import Client
from tests.servers import FakeModelServer, Reply

__all__ = ["chat_dir"]


def test_tai_ai_starts_in_an_agent_with_a_first_prompt(
    chat_dir: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(text="A plan."), Reply(text="Done."))
    out = ai(chat_dir, isolated_env, "and then?\n", "-agent", "plan", "add dark mode")
    assert "agent: /plan (model local; kinds: memory, response)" in out
    system = system_of(openai_server, 0)
    assert system.startswith("You are planning a change with the user; you do not make it.")
    assert "The user wants a plan for: add dark mode" in system
    assert "# shell blocks" not in system  # off without -shell: the agent cannot turn it on
    assert contents(openai_server, 0)[-1].endswith(as_sent("add dark mode", "user-input-1"))
    assert system_of(openai_server, 1) == system  # the agent stays for the next turn


def test_an_agent_without_the_skill_kind_is_not_shown_the_skills(
    chat_dir: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    """The skills index tells the model to load a skill with a skill block: under an agent
    whose kinds leave the skill kind out, the index goes too."""
    from tests.agents.test_skills import skill

    skill(chat_dir / ".tai" / "skills", "release", "how a release is cut")
    openai_server.script(Reply(text="Hi."), Reply(text="A plan."))
    ai(chat_dir, isolated_env, "hello\n/plan add dark mode\n")
    own, planning = system_of(openai_server, 0), system_of(openai_server, 1)
    assert "# Skills" in own and "- release — how a release is cut" in own
    assert "# Skills" not in planning and "release" not in planning


@pytest.mark.slow
def test_a_session_taken_up_says_it_left_its_agent(
    chat_dir: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    """The agent is no part of what a kept session restores: taking it up says so, and
    how to switch again, instead of going on under the session's own prompt unsaid."""
    openai_server.script(Reply(text="A plan."), Reply(text="Own prompt."))
    ai(chat_dir, isolated_env, "", "-agent", "plan", "add dark mode")
    result = run_tai("ai", "-continue", cwd=chat_dir, env=isolated_env, stdin="and now?\n")
    assert result.returncode == 0, result.stderr
    assert ("tai: warning: the session ran under /plan; it is taken up with its own prompt "
            "(/plan switches to it again)") in result.stderr  # fmt: skip
    assert not system_of(openai_server, 1).startswith("You are planning")


@pytest.mark.slow
def test_typed_agent_commands_switch_and_go_back(
    chat_dir: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    agent_file(chat_dir / ".tai" / "agents", "terse", body="Answer in one word. ({{ date }})",
               description="one-word answers", tools="response")  # fmt: skip
    openai_server.script(Reply(text="Hi."), Reply(text="Yes."), Reply(text="Sure, gladly."))
    prompts = "hello\n/terse ready?\n/agent off\nthanks\n/nope\n"
    out = ai(chat_dir, isolated_env, prompts)
    assert "agent: /terse (model local; kinds: response)" in out
    assert "agent: the session's own prompt" in out
    first, terse, back = (system_of(openai_server, i) for i in range(3))
    assert terse.startswith("Answer in one word. (20")
    assert "# memory blocks" in first and "# memory blocks" not in terse
    assert "- memory: nothing is remembered in this session" in terse
    assert back == first
    assert "# Agent commands" in first and "- /terse — one-word answers" in first


def test_tai_ai_refuses_an_unknown_agent(chat_dir: Path, isolated_env: dict[str, str]) -> None:
    from tests.conftest import run_tai

    result = run_tai("ai", "-agent", "nope", "hi", cwd=chat_dir, env=isolated_env, stdin="")
    assert result.returncode == 2  # a usage error
    assert "tai: error: no agent command /nope (the agent commands: /init, /plan" in result.stderr


def test_serve_switches_and_submits_the_text(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> None:
    from tests.commands.test_next import configure

    configure(tmp_path, openai_server)
    openai_server.script(Reply(text="Findings."))
    client = Client(tmp_path, isolated_env)
    client.send(type="start", session_id="s")
    client.until("session_started", session_id="s")
    client.send(type="command", session_id="s", command="research", args="where is main?")
    activated = client.until("agent_activated", session_id="s")
    assert activated["name"] == "research"
    client.until("run_finished", session_id="s")
    status, _ = client.finish()
    assert status == 0
    system = system_of(openai_server, 0)
    assert system.startswith("You are investigating a question about this project")
    assert "The question: where is main?" in system
    assert contents(openai_server, 0)[-1].endswith(as_sent("where is main?", "user-input-1"))
