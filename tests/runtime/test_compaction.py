"""Compaction (``tai_core.runtime._compaction``) in real sessions against the fake
OpenAI-compatible server: a turn whose request nears the window compacts the conversation
first, the compact command does it on request, plugins may skip it or add to it, and a
failure keeps the conversation as it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tai_core import hookimpl
from tai_core.config import ConfigError, load_config
from tai_core.models import estimate_tokens
from tai_core.pipeline._loop import PLAN_FEED_LIMIT
from tai_core.runtime import (
    CompactionSettings,
    CompactSession,
    Notice,
    SessionCompacted,
    Submit,
    TreeChanged,
)
from tai_core.runtime._compaction import ACKNOWLEDGED, SUMMARY_HEADING
from tests.servers import FakeModelServer, Reply

from ..conftest import as_sent
from .conftest import drive_server_session

#: A window of 2,000 tokens (1,500 for a request): two turns of these fill three quarters.
WINDOW = {"context_tokens": 2000, "max_generate_tokens": 500}
LONG = "The parser splits lines on CRLF. " * 86  # about 720 tokens (and its node's line)


class Watcher:
    """Records both compaction hooks; answers ``before`` with ``answer``."""

    def __init__(self, answer: Any = None) -> None:
        self.answer = answer
        self.before: list[tuple[int, str]] = []
        self.after: list[tuple[str, int, int, str]] = []

    @hookimpl
    def tai_before_compaction(self, session: Any, messages: Any, reason: str) -> Any:
        self.before.append((len(messages), reason))
        return self.answer

    @hookimpl
    def tai_after_compaction(
        self, session: Any, reason: str, messages_before: int, messages_after: int, summary: str
    ) -> None:
        self.after.append((reason, messages_before, messages_after, summary))


def turns(*texts: str) -> Any:
    async def scenario(runtime: Any) -> None:
        for text in texts:
            runtime.handle(Submit("s", text))
            await runtime.wait("s")

    return scenario


def messages_of(request: Any) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in request.body["messages"]]


def test_a_turn_near_the_window_compacts_first(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    watcher = Watcher()
    host.register(watcher, "watcher")
    summary = "Objective: fix CRLF splitting."
    openai_server.script(Reply(text="Noted one."), Reply(text="Noted two."), Reply(text=summary),
                         Reply(text="Done."))  # fmt: skip
    events = drive_server_session(host, openai_server, tmp_path,
                                  turns(LONG, LONG, "Now fix it."), generator=WINDOW)  # fmt: skip
    _, second, summary_call, third = openai_server.requests
    assert len(messages_of(second)) == 4  # the system prompt and three: no compaction yet
    system, asked = messages_of(summary_call)
    assert "You compact a conversation" in system[1]
    assert "[user]\nThe parser splits" in asked[1] and "[assistant]\nNoted two." in asked[1]
    assert "Now fix it." not in asked[1]  # the new input is not summarised, it follows
    assert messages_of(third)[1:] == [
        ("user", f"{SUMMARY_HEADING}\nObjective: fix CRLF splitting."),
        ("assistant", ACKNOWLEDGED),
        ("user", as_sent("Now fix it.", "user-input-3")),
    ]
    (compacted,) = [e for e in events if isinstance(e, SessionCompacted)]
    assert (compacted.reason, compacted.messages_before, compacted.messages_after) == (
        "auto", 4, 2)  # fmt: skip
    tree = [e.tree for e in events if isinstance(e, TreeChanged)][-1]
    (node,) = [n for n in tree.children("session") if n.attrs.get("event") == "compaction"]
    assert node.body == summary
    assert watcher.before == [(4, "auto")]
    assert watcher.after == [("auto", 4, 2, "Objective: fix CRLF splitting.")]


def test_auto_compaction_can_be_switched_off(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    openai_server.script(*(Reply(text=f"Noted {n}.") for n in range(3)))
    off = CompactionSettings(enabled=False)
    drive_server_session(host, openai_server, tmp_path, turns(LONG, LONG, "Now fix it."),
                         generator=WINDOW, compaction=off)  # fmt: skip
    assert len(openai_server.requests) == 3
    assert len(messages_of(openai_server.requests[-1])) == 6


def test_the_compact_command_with_the_users_instructions(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(text="A."), Reply(text="B."), Reply(text="Summary."),
                         Reply(text="C."))  # fmt: skip

    async def scenario(runtime: Any) -> None:
        await turns("one", "two")(runtime)
        runtime.handle(CompactSession("s", "keep every number"))
        await runtime.wait("s")
        await turns("three")(runtime)

    events = drive_server_session(host, openai_server, tmp_path, scenario)
    summary_call = openai_server.requests[2]
    assert messages_of(summary_call)[1][1].endswith("The user adds: keep every number")
    assert [e.reason for e in events if isinstance(e, SessionCompacted)] == ["requested"]
    assert [text for _, text in messages_of(openai_server.requests[3])][1:] == [
        f"{SUMMARY_HEADING}\nSummary.", ACKNOWLEDGED, as_sent("three", "user-input-3")]  # fmt: skip


def test_a_conversation_too_short_is_kept_and_said(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(text="A."))

    async def scenario(runtime: Any) -> None:
        await turns("one")(runtime)
        runtime.handle(CompactSession("s"))
        await runtime.wait("s")

    events = drive_server_session(host, openai_server, tmp_path, scenario)
    assert len(openai_server.requests) == 1
    warnings = [e.message for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert warnings == ["nothing to compact: the conversation holds 2 messages"]


@pytest.mark.parametrize(
    ("answer", "calls"),
    [({"skip": True}, 0), ({"instructions": "keep the file names"}, 1)],
)
def test_a_plugin_skips_or_adds_instructions(
    host: Any, tmp_path: Path, openai_server: FakeModelServer, answer: Any, calls: int
) -> None:
    host.register(Watcher(answer), "watcher")
    openai_server.script(Reply(text="A."), Reply(text="B."), Reply(text="Summary."))

    async def scenario(runtime: Any) -> None:
        await turns("one", "two")(runtime)
        runtime.handle(CompactSession("s"))
        await runtime.wait("s")

    events = drive_server_session(host, openai_server, tmp_path, scenario)
    assert len(openai_server.requests) == 2 + calls
    compactions = [e for e in events if isinstance(e, SessionCompacted)]
    assert len(compactions) == calls
    if calls:
        assert messages_of(openai_server.requests[2])[1][1].endswith(
            "The user adds: keep the file names")  # fmt: skip


def test_a_failed_summary_keeps_the_conversation_and_the_turn_goes_on(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    refused = Reply(fault="400", message="context too long")
    openai_server.script(Reply(text="One."), Reply(text="Two."), refused, Reply(text="Done."))
    events = drive_server_session(host, openai_server, tmp_path,
                                  turns(LONG, LONG, "Now fix it."), generator=WINDOW)  # fmt: skip
    assert len(messages_of(openai_server.requests[-1])) == 6  # all of it, uncompacted
    warnings = [e.message for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert any(w.startswith("compaction failed:") and "context too long" in w for w in warnings)
    assert not [e for e in events if isinstance(e, SessionCompacted)]


def test_a_raising_before_hook_is_named_and_the_conversation_kept(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    class Broken:
        @hookimpl
        def tai_before_compaction(self, session: Any, messages: Any, reason: str) -> Any:
            raise RuntimeError("boom")

    host.register(Broken(), "bad")
    openai_server.script(Reply(text="One."), Reply(text="Two."), Reply(text="Done."))
    events = drive_server_session(host, openai_server, tmp_path,
                                  turns(LONG, LONG, "Now fix it."), generator=WINDOW)  # fmt: skip
    warnings = [e.message for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert warnings == [
        "plugin 'bad': tai_before_compaction failed: RuntimeError: boom; "
        "the conversation is kept as it is"
    ]
    assert len(openai_server.requests) == 3


def test_the_ratios_are_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAI_CONFIG_DIR", str(tmp_path / "none"))
    (tmp_path / "tai.toml").write_text("[auto_compact]\nthreshold_ratio = 1.5\n")
    with pytest.raises(ConfigError, match="threshold_ratio"):
        load_config(tmp_path)
    (tmp_path / "tai.toml").write_text("[auto_compact]\nthreshold_ratio = 0.3\n")
    with pytest.raises(ValueError, match=r"target_ratio \(0.35\) must be below"):
        CompactionSettings.of(load_config(tmp_path).values)
    (tmp_path / "tai.toml").write_text("[auto_compact]\nenabled = false\n")
    assert CompactionSettings.of(load_config(tmp_path).values) == CompactionSettings(
        enabled=False)  # fmt: skip


def test_the_opening_is_kept_and_not_summarised_at_every_turn(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    """A first message's rules and files (before its ``# Task``) stay in front of the
    summary; a large opening that no summary shrinks is not compacted again at the next
    turn, only once two more turns follow the summary."""
    first = f"Rules of the chat.\n{LONG}\n# Task\n\nsay one"
    openai_server.script(Reply(text="One."), Reply(text="Two."), Reply(text="Counting."),
                         Reply(text="Three."), Reply(text="Four."))  # fmt: skip
    events = drive_server_session(host, openai_server, tmp_path,
                                  turns(first, LONG, "say three", "say four"),
                                  generator=WINDOW)  # fmt: skip
    assert len(openai_server.requests) == 5  # one summary call only
    after = messages_of(openai_server.requests[3])[1:]
    assert after[0] == (
        "user",
        f"Rules of the chat.\n{LONG}\n# Task\n\n{SUMMARY_HEADING}\nCounting.",
    )
    assert len(messages_of(openai_server.requests[4])) == 6  # not compacted again
    assert len([e for e in events if isinstance(e, SessionCompacted)]) == 1


def test_a_raising_after_hook_is_named_and_the_compaction_stands(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    class Broken:
        @hookimpl
        def tai_after_compaction(self, session: Any, reason: str, messages_before: int,
                                 messages_after: int, summary: str) -> None:  # fmt: skip
            raise RuntimeError("boom")

    host.register(Broken(), "bad")
    openai_server.script(Reply(text="One."), Reply(text="Two."), Reply(text="Sum."),
                         Reply(text="Done."))  # fmt: skip
    events = drive_server_session(host, openai_server, tmp_path,
                                  turns(LONG, LONG, "Now fix it."), generator=WINDOW)  # fmt: skip
    warnings = [e.message for e in events if isinstance(e, Notice) and e.level == "warning"]
    assert warnings == ["plugin 'bad': tai_after_compaction failed: RuntimeError: boom"]
    assert len(messages_of(openai_server.requests[-1])) == 4  # compacted all the same


PLAN = (
    '<<松柏 new-plan(parent="user-input-1", name="p")\nfix the parser\n松柏\n'
    '<<竹梅 plan-op(op="add", parent="p", name="s1")\nwrite tests\n竹梅\n'
    '<<蘭菊 plan-op(op="add", parent="p", name="s2")\nsplit on CRLF\n蘭菊\n'
)


def test_the_plans_in_force_stay_pinned_after_compaction(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    working = [Reply(text="Working on it.")] * PLAN_FEED_LIMIT  # the entry is handed over
    openai_server.script(
        Reply(text=PLAN), *working, Reply(text="Noted."), Reply(text="Objective: fix CRLF."),
        Reply(text="On it."),
    )  # fmt: skip
    drive_server_session(host, openai_server, tmp_path, turns("Plan it.", LONG, LONG),
                         generator=WINDOW, run_options={"command": "any"})  # fmt: skip
    *_, summary_call, after = openai_server.requests
    assert "You compact a conversation" in messages_of(summary_call)[0][1]
    first = messages_of(after)[1][1]
    assert first.startswith(SUMMARY_HEADING)
    assert first.endswith(
        "Plans in force (from the session tree; carry on with the pending entries):\n"
        "Plan 'p': fix the parser\n- [pending] s1: write tests\n- [pending] s2: split on CRLF"
    )
    assert messages_of(after)[-1] == ("user", as_sent(LONG, "user-input-3"))
    assert estimate_tokens(json.dumps(after.body["messages"])) < WINDOW["context_tokens"]
