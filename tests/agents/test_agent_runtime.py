"""Agent commands carried out by the runtime against a real HTTP model server: the system
prompt rebuilt around the agent's text, the kinds narrowed (never widened), the model
switched for the agent's turns, and everything restored by ``/agent off``."""

from __future__ import annotations

import datetime
import sys
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
    RunFailed,
    RunFinished,
    Submit,
)
from tai_core.runtime._agents import agent_help, agent_switch
from tests.runtime.conftest import drive_server_session
from tests.runtime.test_compaction import messages_of
from tests.servers import FakeModelServer, Reply


def rebuild(base: str | None, off: frozenset[str]) -> str:
    """A session's system prompt as the front-end would rebuild it: the base, the kinds off."""
    return f"{base or 'OWN PROMPT'}\nOFF: {','.join(sorted(off))}"


#: What each agent's template was rendered with, in order.
RENDERED: list[tuple[str, dict[str, Any]]] = []


def agent(name: str, **fields: Any) -> AgentCommand:
    def render(data: Mapping[str, Any]) -> str:
        RENDERED.append((name, dict(data)))
        return f"AGENT {name} for {data['arguments'] or '-'} with {','.join(data['kinds'])}"

    return AgentCommand(name=name, description=f"the {name} agent", render=render, **fields)


AGENTS = {
    "plan": agent("plan", tools=("response", "shell", "frobnicate", "zap")),
    "fast": agent("fast", model="other"),
    "compact": agent("compact", user_invocable=False),
    "broken": AgentCommand("broken", "fails", render=lambda data: data["nope"], source="x.md"),
    "lost": agent("lost", model="nowhere-model"),
    "bare": AgentCommand("bare", "fails", render=lambda data: data["nope"]),
}
OTHER = {"name": "other", "type": "openai", "model": "m2", "api_key": "k"}


def drive(host: Any, server: FakeModelServer, tmp_path: Path, scenario: Any,
          setup_changes: dict[str, Any] | None = None, **options: Any):  # fmt: skip
    other = {**OTHER, "base_url": server.base_url}
    return drive_server_session(
        host, server, tmp_path, scenario, more_generators=[other], agents=lambda: AGENTS,
        setup_changes=setup_changes or {"rebuild_system": rebuild},
        run_options={"disabled": frozenset({"shell"})}, **options,
    )  # fmt: skip


async def two_turns_then_compact(runtime: Any) -> None:
    """Two long turns, then ``/compact``."""
    long = "The parser splits lines on CRLF. " * 30
    for text in (long, long):
        runtime.handle(Submit("s", text))
        await runtime.wait("s")
    runtime.handle(CompactSession("s"))
    await runtime.wait("s")


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

    RENDERED.clear()
    events = drive(host, openai_server, tmp_path, scenario)
    (rendered,) = RENDERED
    assert rendered == ("plan", {
        "cwd": str(tmp_path), "platform": sys.platform,
        "date": datetime.date.today().isoformat(), "model": "local", "session_id": "s",
        "kinds": ["response"], "arguments": "the migration",
    })  # fmt: skip
    systems = [messages_of(request)[0][1] for request in openai_server.requests]
    assert systems[0] == "S"  # the session's own, as it was set up
    kinds = sorted(host.registry.block_kinds)
    narrowed = ",".join(k for k in kinds if k != "response")  # shell stays off
    assert systems[1] == f"AGENT plan for the migration with response\nOFF: {narrowed}"
    assert systems[2] == "S"  # /agent off: exactly what was
    switched = [e for e in events if isinstance(e, AgentActivated)]
    assert {e.session_id for e in switched} == {"s"}
    assert (switched[0].name, switched[0].kinds) == ("plan", ("response",))
    assert switched[1].name == "" and "shell" not in switched[1].kinds
    warnings = [(e.session_id, e.message) for e in events
                if isinstance(e, Notice) and e.level == "warning"]  # fmt: skip
    assert ("s", "/plan: no block kind frobnicate, zap is installed") in warnings


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
        (
            "nope",
            "no agent command /nope (the agent commands: /bare, /broken, /fast, /lost, /plan)",
        ),
        ("bare", "/bare: its template failed: 'nope'"),
        ("compact", "no agent command /compact"),  # not for users
        ("broken", "/broken (x.md): its template failed: 'nope'"),
        ("lost", "/lost: its model 'nowhere-model': "),
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
    errors = [e for e in events if isinstance(e, Notice) and e.level == "error"]
    assert len(errors) == 1 and errors[0].message.startswith(error)
    assert errors[0].session_id == "s"
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
    openai_server.script(Reply(text="Noted one."), Reply(text="Noted two."), Reply(text="Sum."))
    RENDERED.clear()
    drive(host, openai_server, tmp_path, two_turns_then_compact)
    system, _ = messages_of(openai_server.requests[-1])
    assert system == ("system", "AGENT compact for - with ")
    assert [(name, data["arguments"], data["model"], data["session_id"])
            for name, data in RENDERED] == [("compact", "", "local", "s")]  # fmt: skip


def test_the_kinds_off_are_off_in_the_run_too(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    """Not only the prompt: a block of a kind the agent leaves out is not carried out."""
    block = "<<甲乙 summary\n- all done\n甲乙\n"
    openai_server.script(Reply(text=block), Reply(text=block), Reply(text=block))

    async def scenario(runtime: Any) -> None:
        runtime.handle(Submit("s", "before"))
        await runtime.wait("s")
        runtime.handle(ActivateAgent("s", "plan"))
        runtime.handle(Submit("s", "after"))
        await runtime.wait("s")
        runtime.handle(ActivateAgent("s", ""))
        runtime.handle(Submit("s", "back"))
        await runtime.wait("s")

    events = drive(host, openai_server, tmp_path, scenario)
    assert len(openai_server.requests) == 3
    assert [type(e).__name__ for e in events if isinstance(e, RunFinished | RunFailed)] == [
        "RunFinished"] * 3  # fmt: skip
    warnings = [e.message for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert [w for w in warnings if "summary" in w] == [
        "summary block at line 1: summary blocks are disabled in this command; it was discarded"
    ]  # only while switched: not before, not after /agent off


def test_an_agents_model_of_another_provider_answers_its_turns(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    (tmp_path / "agent.replay").write_text("@@@ reply\nFrom the replay.\n")
    agents = {"solo": agent("solo", model=f"replay:{tmp_path / 'agent.replay'}")}
    openai_server.script(Reply(text="From the server."))

    async def scenario(runtime: Any) -> None:
        runtime.handle(ActivateAgent("s", "solo"))
        runtime.handle(Submit("s", "hello"))
        await runtime.wait("s")
        runtime.handle(ActivateAgent("s", ""))
        runtime.handle(Submit("s", "again"))
        await runtime.wait("s")

    events = drive_server_session(
        host, openai_server, tmp_path, scenario, agents=lambda: agents,
        setup_changes={"rebuild_system": rebuild},
    )  # fmt: skip
    assert len(openai_server.requests) == 1  # only the turn after /agent off
    texts = "".join(getattr(e, "text", "") for e in events if type(e).__name__ == "TextReceived")
    assert "From the replay." in texts and "From the server." in texts
    solo = next(e for e in events if isinstance(e, AgentActivated))
    assert set(solo.kinds) == {"response", "skill", "summary"}  # no tools: every kind on
    assert not [e for e in events if isinstance(e, Notice) and e.level == "warning"]


def test_the_session_command_forms() -> None:
    agents = {"plan": agent("plan")}
    assert agent_switch(agents, RunExtensionCommand("s", "plan", "a b")) == ActivateAgent(
        "s", "plan", "a b")  # fmt: skip
    assert agent_switch(agents, RunExtensionCommand("s", "agent", " plan  the parser ")) == (
        ActivateAgent("s", "plan", "the parser"))  # fmt: skip
    assert agent_switch(agents, RunExtensionCommand("s", "agent", "off")) == ActivateAgent(
        "s", "", "")  # fmt: skip
    assert agent_switch(agents, RunExtensionCommand("s", "agent", "")) == ActivateAgent("s", "", "")
    assert agent_switch(agents, RunExtensionCommand("s", "status", "x")) is None


def test_the_help_lines() -> None:
    agents = {"plan": agent("plan", argument_hint="[what]"), "compact": AGENTS["compact"],
              "duck": agent("duck")}  # fmt: skip
    assert agent_help(agents) == [
        "/duck — the duck agent (agent)", "/plan [what] — the plan agent (agent)",
        "/agent off — back to the session's own prompt, kinds and model",
    ]  # fmt: skip
    assert agent_help({"compact": AGENTS["compact"]}) == []


def test_a_session_that_cannot_rebuild_its_prompt_does_not_switch(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    async def scenario(runtime: Any) -> None:
        runtime.handle(ActivateAgent("s", "plan"))

    events = drive_server_session(host, openai_server, tmp_path, scenario, agents=lambda: AGENTS)
    errors = [e.message for e in events if isinstance(e, Notice) and e.level == "error"]
    assert errors == ["this session cannot switch to agent commands"]


def test_a_failing_compact_agent_leaves_the_built_in_instructions(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    broken = {"compact": AgentCommand("compact", "x", render=lambda data: data["nope"],
                                      user_invocable=False, source="c.md")}  # fmt: skip
    openai_server.script(Reply(text="One."), Reply(text="Two."), Reply(text="Sum."))
    events = drive_server_session(host, openai_server, tmp_path, two_turns_then_compact,
                                  agents=lambda: broken)  # fmt: skip
    assert "You compact a conversation" in messages_of(openai_server.requests[-1])[0][1]
    warnings = [e.message for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert (
        "the agent command compact (c.md) failed: 'nope'; the built-in instructions of "
        "compaction are used" in warnings
    )


def test_without_agent_commands_the_refusal_says_so(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    async def scenario(runtime: Any) -> None:
        runtime.handle(RunExtensionCommand("s", "agent", "plan now"))

    events = drive_server_session(host, openai_server, tmp_path, scenario, agents=dict,
                                  setup_changes={"rebuild_system": rebuild})  # fmt: skip
    errors = [e.message for e in events if isinstance(e, Notice) and e.level == "error"]
    assert errors == ["no agent command /plan (the agent commands: none)"]


def test_a_session_that_cannot_switch_models_says_so(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    async def scenario(runtime: Any) -> None:
        runtime.handle(ActivateAgent("s", "fast"))

    events = drive(host, openai_server, tmp_path, scenario,
                   setup_changes={"rebuild_system": rebuild, "resolve_model": None})  # fmt: skip
    errors = [e.message for e in events if isinstance(e, Notice) and e.level == "error"]
    assert errors == ["/fast asks for the model other; this session cannot switch models"]
