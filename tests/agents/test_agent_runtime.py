"""Agent commands carried out by the runtime against a real HTTP model server: the system
prompt rebuilt around the agent's text, the kinds narrowed (never widened), the model
switched for the agent's turns, and everything restored by ``/agent off``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tai_core.plugins import AgentCommand
from tai_core.runtime import (
    ActivateAgent,
    AgentActivated,
    CompactSession,
    Notice,
    RunExtensionCommand,
    Submit,
)
from tests.runtime.conftest import drive_server_session
from tests.runtime.test_compaction import messages_of
from tests.servers import FakeModelServer, Reply


def rebuild(base: str | None, off: frozenset[str]) -> str:
    """A session's system prompt as the front-end would rebuild it: the base, the kinds off."""
    return f"{base or 'OWN PROMPT'}\nOFF: {','.join(sorted(off))}"


def agent(name: str, **fields: Any) -> AgentCommand:
    def render(data: Mapping[str, Any]) -> str:
        return f"AGENT {name} for {data['arguments'] or '-'} with {','.join(data['kinds'])}"

    return AgentCommand(name=name, description=f"the {name} agent", render=render, **fields)


AGENTS = {
    "plan": agent("plan", tools=("response", "shell", "frobnicate")),
    "fast": agent("fast", model="other"),
    "compact": agent("compact", user_invocable=False),
    "broken": AgentCommand("broken", "fails", render=lambda data: data["nope"]),
}
OTHER = {"name": "other", "type": "openai", "model": "m2", "api_key": "k"}


def drive(host: Any, server: FakeModelServer, tmp_path: Path, scenario: Any, **options: Any):
    other = {**OTHER, "base_url": server.base_url}
    return drive_server_session(
        host, server, tmp_path, scenario, more_generators=[other], agents=lambda: AGENTS,
        setup_changes={"rebuild_system": rebuild}, run_options={"disabled": frozenset({"shell"})},
        **options,
    )  # fmt: skip


def test_an_agent_rebuilds_the_prompt_narrows_the_kinds_and_goes_back(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(text="One."), Reply(text="Two."), Reply(text="Three."))

    async def scenario(runtime: Any) -> None:
        runtime.handle(Submit("s", "first"))
        await runtime.wait("s")
        runtime.handle(RunExtensionCommand("s", "plan", "the migration"))
        assert runtime.agent("s") == "plan"
        runtime.handle(Submit("s", "second"))
        await runtime.wait("s")
        runtime.handle(RunExtensionCommand("s", "agent", "off"))
        runtime.handle(Submit("s", "third"))
        await runtime.wait("s")

    events = drive(host, openai_server, tmp_path, scenario)
    systems = [messages_of(request)[0][1] for request in openai_server.requests]
    assert systems[0] == "S"  # the session's own, as it was set up
    kinds = sorted(host.registry.block_kinds)
    narrowed = ",".join(k for k in kinds if k != "response")  # shell stays off
    assert systems[1] == f"AGENT plan for the migration with response\nOFF: {narrowed}"
    assert systems[2] == "S"  # /agent off: exactly what was
    switched = [e for e in events if isinstance(e, AgentActivated)]
    assert (switched[0].name, switched[0].kinds) == ("plan", ("response",))
    assert switched[1].name == "" and "shell" not in switched[1].kinds
    warnings = [e.message for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert "/plan: no block kind frobnicate is installed" in warnings


def test_an_agent_switches_the_model_for_its_turns_only(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(text="One."), Reply(text="Two."))

    async def scenario(runtime: Any) -> None:
        runtime.handle(ActivateAgent("s", "fast"))
        runtime.handle(Submit("s", "quick"))
        await runtime.wait("s")
        runtime.handle(ActivateAgent("s", ""))
        runtime.handle(Submit("s", "slow"))
        await runtime.wait("s")

    events = drive(host, openai_server, tmp_path, scenario)
    assert [r.body["model"] for r in openai_server.requests] == ["m2", "m"]
    assert [e.model for e in events if isinstance(e, AgentActivated)] == ["other", "local"]


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("nope", "no agent command /nope (the agent commands: /broken, /fast, /plan)"),
        ("compact", "no agent command /compact"),  # not for users
        ("broken", "/broken: its template failed: 'nope'"),
    ],
)
def test_a_switch_that_cannot_be_made_changes_nothing(
    name: str, error: str, host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(text="One."))

    async def scenario(runtime: Any) -> None:
        runtime.handle(ActivateAgent("s", name))
        assert runtime.agent("s") == ""
        runtime.handle(Submit("s", "hello"))
        await runtime.wait("s")

    events = drive(host, openai_server, tmp_path, scenario)
    errors = [e.message for e in events if isinstance(e, Notice) and e.level == "error"]
    assert len(errors) == 1 and errors[0].startswith(error)
    assert messages_of(openai_server.requests[0])[0][1] == "S"
    assert not [e for e in events if isinstance(e, AgentActivated)]


def test_no_switch_while_a_turn_runs(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(text="Slow answer.", chunks=40))

    async def scenario(runtime: Any) -> None:
        runtime.handle(Submit("s", "hello"))
        runtime.handle(ActivateAgent("s", "plan"))
        await runtime.wait("s")

    events = drive(host, openai_server, tmp_path, scenario)
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert "the session is running; cancel it first" in notices
    assert not [e for e in events if isinstance(e, AgentActivated)]


def test_compaction_takes_the_compact_agents_text(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    long = "The parser splits lines on CRLF. " * 30
    openai_server.script(Reply(text="Noted one."), Reply(text="Noted two."), Reply(text="Sum."))

    async def scenario(runtime: Any) -> None:
        for text in (long, long):
            runtime.handle(Submit("s", text))
            await runtime.wait("s")
        runtime.handle(CompactSession("s"))
        await runtime.wait("s")

    drive(host, openai_server, tmp_path, scenario)
    system, _ = messages_of(openai_server.requests[-1])
    assert system == ("system", "AGENT compact for - with ")
