"""Questions from a running block to the user (``tai_core.blocks.ask``): out as
``PromptRequested``, back as ``RespondToPrompt`` — in process and over ``tai serve -stdio``
— and never a hang: a batch run takes the default at once, a cancelled turn takes it too."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tai_core import BlockKind, BlockResult, hookimpl
from tai_core.blocks import ask
from tai_core.plugins import PluginHost
from tai_core.runtime import (
    Cancel,
    EventBus,
    Notice,
    PromptAnswered,
    PromptRequested,
    RespondToPrompt,
    Runtime,
    StartSession,
    Submit,
)
from tai_core.testing import Reply, ScriptedModel, run_session
from tests.servers import FakeModelServer
from tests.servers import Reply as ServerReply

from ..commands.test_next import configure
from ..serve.test_serve import Client


class Confirm(BlockKind):
    name = "confirm-delete"
    commands = frozenset({"any", "ai"})
    prompt_section = "# confirm-delete blocks"
    restatement = "confirm-delete"
    disabled_notice = "no deleting"

    def execute(self, block: Any, context: Any) -> BlockResult:
        sure = ask(context, "confirm", f"Delete {block.body.strip()}?", default=False)
        color = ask(context, "select", "Which colour?", choices=("red", "blue"), default="red")
        return BlockResult(kind=self.name, ok=True, text=f"deleted: {sure}, colour: {color}")


class Plugin:
    __name__ = "confirm_plugin"

    @hookimpl
    def tai_register_block_kinds(self, register: Any) -> None:
        register(Confirm())


BLOCK = "<<甲乙 confirm-delete\nbuild/\n甲乙\n"
SUMMARY = "<<丙丁 summary\n- asked\n丙丁\n"


def test_a_batch_run_takes_the_defaults_at_once(host: PluginHost, tmp_path: Path) -> None:
    host.register(Plugin(), "confirm")
    model = ScriptedModel(BLOCK, Reply(f"Done.\n{SUMMARY}"))
    run = run_session(host, model, "Clean up.", cwd=tmp_path, command="any")
    assert run.finished and run.of(PromptRequested) == []
    assert "deleted: False, colour: red" in model.requests[1].messages[-1].text


def session(host: PluginHost, tmp_path: Path, model: ScriptedModel) -> tuple[Any, str]:
    from tai_core.commands._session import make_setup

    setup = make_setup(host, {}, (model, model.spec("m", {}, {}, {})), command="any",
                       system="", require_completion=False, cwd=tmp_path)  # fmt: skip
    return setup, setup.options.session_id


def test_answers_come_back_from_a_client(host: PluginHost, tmp_path: Path) -> None:
    host.register(Plugin(), "confirm")
    model = ScriptedModel(BLOCK, Reply(f"Done.\n{SUMMARY}"))
    setup, session_id = session(host, tmp_path, model)

    async def scenario() -> list[Any]:
        runtime = Runtime(host.pm.hook, EventBus(), answers_prompts=True)
        subscription = runtime.bus.subscribe()
        runtime.handle(StartSession(setup))
        runtime.handle(Submit(session_id, "Clean up.", "Clean up."))
        seen: list[Any] = []
        async for event in subscription:
            seen.append(event)
            if isinstance(event, PromptRequested):
                answer = {"confirm": "yes", "select": "green"}[event.kind]  # wrong first
                runtime.handle(RespondToPrompt(session_id, event.prompt_id, answer))
                right = True if event.kind == "confirm" else "blue"
                runtime.handle(RespondToPrompt(session_id, event.prompt_id, right))
                runtime.handle(RespondToPrompt(session_id, "nope", right))
            if type(event).__name__ == "RunFinished":
                break
        await runtime.shutdown()
        return seen

    seen = asyncio.run(scenario())
    asked = [e for e in seen if isinstance(e, PromptRequested)]
    assert [(e.kind, e.message, e.choices, e.default) for e in asked] == [
        ("confirm", "Delete build/?", (), False),
        ("select", "Which colour?", ("red", "blue"), "red"),
    ]  # fmt: skip
    assert [e.answer for e in seen if isinstance(e, PromptAnswered)] == [True, "blue"]
    errors = [e.message for e in seen if isinstance(e, Notice) and e.level == "error"]
    assert errors == [
        f"the answer to {asked[0].prompt_id!r} must be true or false",
        "no open question 'nope'",
        f"the answer to {asked[1].prompt_id!r} must be one of the choices",
        "no open question 'nope'",
    ]
    assert "deleted: True, colour: blue" in model.requests[1].messages[-1].text


def test_a_cancelled_turn_gives_its_questions_their_defaults(
    host: PluginHost, tmp_path: Path
) -> None:
    answers: list[Any] = []

    class Recording(Confirm):
        def execute(self, block: Any, context: Any) -> BlockResult:
            result = super().execute(block, context)
            answers.append(result.text)
            return result

    class RecordingPlugin(Plugin):
        @hookimpl
        def tai_register_block_kinds(self, register: Any) -> None:
            register(Recording())

    host.register(RecordingPlugin(), "confirm")
    model = ScriptedModel(BLOCK, Reply(f"Done.\n{SUMMARY}"))
    setup, session_id = session(host, tmp_path, model)

    async def scenario() -> list[Any]:
        # questions time out after 2 s here, so that a regression fails fast, not in 600 s
        runtime = Runtime(host.pm.hook, EventBus(), answers_prompts=True, prompt_timeout=2)
        subscription = runtime.bus.subscribe()
        runtime.handle(StartSession(setup))
        runtime.handle(Submit(session_id, "Clean up.", "Clean up."))
        async for event in subscription:
            if isinstance(event, PromptRequested):
                runtime.handle(Cancel(session_id))
                break
        await runtime.wait(session_id)
        while not answers:  # the block's thread goes on to its end
            await asyncio.sleep(0.01)
        events = subscription.take_pending()
        await runtime.shutdown()
        return events

    events = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert answers == ["deleted: False, colour: red"]  # both questions: their defaults
    assert [e for e in events if isinstance(e, PromptRequested)] == []  # no second question
    assert not [e for e in events if isinstance(e, Notice) and "no answer" in e.message]


@contextlib.contextmanager
def confirming_server(tmp_path: Path, env: dict[str, str]) -> Iterator[tuple[Client, Any]]:
    """``tai serve -stdio`` with the confirm-delete plugin installed, and the model server
    whose first reply is its block."""
    from tests.installed import plugin_distribution

    plugin_distribution(tmp_path / "site", PLUGIN_MODULE, name="confirm")
    with FakeModelServer("openai") as server:
        server.script(ServerReply(text=BLOCK), ServerReply(text=f"Done.\n{SUMMARY}"))
        configure(tmp_path, server)
        env = {**env, "PYTHONPATH": str(tmp_path / "site"), "TAI_NO_SANDBOX": "1"}
        served = Client(tmp_path, env)
        try:
            yield served, server
        finally:
            served.process.kill()
            served.process.wait(timeout=30)


def test_over_json_lines(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    with confirming_server(tmp_path, isolated_env) as (served, server):
        served.send(type="start", session_id="s")
        served.until("session_started", session_id="s")
        served.send(type="submit", session_id="s", text="Clean up.")
        asked = served.until("prompt_requested", session_id="s")
        assert asked["kind"] == "confirm" and asked["default"] is False
        served.send(type="respond", session_id="s", prompt_id=asked["prompt_id"], answer=True)
        chosen = served.until("prompt_requested", session_id="s")
        assert chosen["kind"] == "select" and chosen["choices"] == ["red", "blue"]
        served.send(type="respond", session_id="s", prompt_id=chosen["prompt_id"],
                    answer="blue")  # fmt: skip
        served.until("run_finished", session_id="s")
        served.finish()
    told = server.requests[1].body["messages"][-1]["content"]
    assert "deleted: True, colour: blue" in told


def test_the_end_of_the_input_answers_the_open_questions(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """A client that closes its input while a question is open is not waited for (the
    question's time-out is ten minutes): the question takes its default at once, with a
    warning, the turn ends and so does the server."""
    with confirming_server(tmp_path, isolated_env) as (served, server):
        served.send(type="start", session_id="s")
        served.send(type="submit", session_id="s", text="Clean up.")
        served.until("prompt_requested", session_id="s")
        status, stderr = served.finish()  # within its 60 s, far below the time-out
    told = server.requests[1].body["messages"][-1]["content"]
    assert status == 0, stderr
    assert "deleted: False, colour: red" in told
    notes = [e["message"] for e in served.seen if e["type"] == "notice"]
    assert "no answer to 'Delete build/?': the input ended; took False" in notes


PLUGIN_MODULE = """
from tai_core import BlockKind, BlockResult, hookimpl
from tai_core.blocks import ask

class Confirm(BlockKind):
    name = "confirm-delete"
    commands = frozenset({"any", "ai"})
    prompt_section = "# confirm-delete blocks"
    restatement = "confirm-delete"
    disabled_notice = "no deleting"

    def execute(self, block, context):
        sure = ask(context, "confirm", "Delete " + block.body.strip() + "?", default=False)
        color = ask(context, "select", "Which colour?", choices=("red", "blue"), default="red")
        return BlockResult(kind=self.name, ok=True, text=f"deleted: {sure}, colour: {color}")

@hookimpl
def tai_register_block_kinds(register):
    register(Confirm())
"""
