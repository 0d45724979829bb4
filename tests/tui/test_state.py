"""What the terminal UI shows, folded from a real session's events (no terminal)."""

from __future__ import annotations

from typing import Any

import pytest

from tai_core.events import (
    Notice,
    PromptAnswered,
    PromptRequested,
    RoundStarted,
    RunFailed,
    SessionStarted,
    TextReceived,
    ThoughtReceived,
    UsageReported,
)
from tai_core.models import Usage
from tai_core.tui._state import UiState, readable


def fold(events: list[Any]) -> UiState:
    state = UiState("s")
    for event in events:
        state.apply(event)
    return state


def test_sections_open_on_their_first_content_and_thoughts_stay_apart() -> None:
    state = fold([
        SessionStarted("s", "go", "flash"), RoundStarted("s", 1, 1),
        RoundStarted("s", 1, 2), ThoughtReceived("s", 1, "hmm"), TextReceived("s", 1, "Hi"),
        TextReceived("s", 1, " there"),
    ])  # fmt: skip
    first, second = state.sections
    assert (first.title, first.folded, first.text) == ("Round 1", True, [])
    assert (second.title, second.folded) == ("Round 1, attempt 2", False)
    assert "".join(second.text) == "Hi there" and second.thoughts == ["hmm"]
    assert state.model == "flash" and state.round == 1
    assert state.running is not None and state.running.what == "streaming"


def test_usage_adds_up_and_other_sessions_are_ignored() -> None:
    state = fold([
        UsageReported("s", 1, Usage(input=100, cache_read=60, output=7), 0.5),
        UsageReported("s", 2, Usage(input=50, cache_read=0, output=3), None),
        UsageReported("other", 2, Usage(input=999), 9.0), Notice("other", "warning", "no"),
        Notice("s", "warning", "retrying"), Notice("", "error", "for everyone"),
    ])  # fmt: skip
    assert (state.prompt_tokens, state.cached_tokens, state.completion_tokens) == (150, 60, 10)
    assert state.cost == 0.5
    assert state.logs == [("warning", "retrying"), ("error", "for everyone")]


def test_a_question_is_open_until_answered_and_a_failure_is_logged() -> None:
    asked = PromptRequested("s", "q1", "confirm", "Run it?", (), False)
    state = fold([asked])
    assert state.question == asked
    state.apply(PromptAnswered("s", "q0", True))
    assert state.question == asked  # another question's answer
    state.apply(PromptAnswered("s", "q1", True))
    assert state.question is None
    state.apply(RunFailed("s", "the model is gone", ""))
    assert state.logs[-1] == ("error", "the model is gone") and state.running is None


@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        ('Sure.\n<<琥珀 response(parent="user-input-1", name="a1")\nThe answer.\n琥珀\n',
         "Sure.\nThe answer.\n"),
        ('<<琥珀 response(parent="user-input-1", name="a1")\nA.\n琥珀\n'
         "<<松柏 memory\n<memory><memory-item>likes Go</memory-item></memory>\n松柏\nBye.\n",
         "A.\n<<松柏 memory\n<memory><memory-item>likes Go</memory-item></memory>\n松柏\n"
         "Bye.\n"),  # what later sessions will be told is never hidden
        ("<<松柏 shell\nls\n松柏\n", "<<松柏 shell\nls\n松柏\n"),  # a command stays as written
        ('<<琥珀 response(parent="user-input-1", name="a1")\nstill stream',  # not closed yet
         '<<琥珀 response(parent="user-input-1", name="a1")\nstill stream'),
        ("Just prose.\n", "Just prose.\n"),
    ],
)  # fmt: skip
def test_a_reply_is_shown_as_a_reader_wants_it(reply: str, shown: str) -> None:
    """The answer without its block lines, the rest (a memory above all) as written."""
    assert readable(reply) == shown


def test_a_command_run_while_a_reply_streams_is_shown_apart() -> None:
    from tai_core.events import ExtensionCommandFinished

    state = fold([
        SessionStarted("s", "ai", "flash"), RoundStarted("s", 1, 1),
        TextReceived("s", 1, "Half "), ExtensionCommandFinished("s", "help", "/help — this list"),
        TextReceived("s", 1, "and the rest."), RunFailed("s", "the model went away"),
    ])  # fmt: skip
    reply, helped = state.sections
    assert "".join(reply.text) == "Half and the rest." and reply.error  # the reply's own
    assert helped.title == "/help" and not helped.folded and not helped.error
    assert helped.readable.splitlines()[0] == "/help — this list"
    assert any("/quit" in line for line in helped.readable.splitlines())  # the chat's too


def test_a_loaded_session_shows_its_turns_from_its_tree() -> None:
    from tai_core.events import SessionLoaded, TreeChanged
    from tai_core.tree import NodeKind, NodeSpec, SessionTree

    tree, first = SessionTree().add(NodeSpec(NodeKind.USER_INPUT, body="what is it?"))
    answer = '<<琥珀 response(name="a")\nIt is 42.\n琥珀\n'
    tree, reply = tree.add(NodeSpec(NodeKind.RESPONSE, parent=first, body=answer))
    tree, _ = tree.add(NodeSpec(NodeKind.RESPONSE, parent=first, name="a", body="It is 42.",
                                attrs={"kind": "response"}))  # fmt: skip
    tree, feedback = tree.add(NodeSpec(NodeKind.FEEDBACK, parent=reply, body="ran"))
    tree, _ = tree.add(NodeSpec(NodeKind.RESPONSE, parent=feedback, body="Checked: 42."))
    tree, second = tree.add(NodeSpec(NodeKind.USER_INPUT, body="sure?"))
    tree, _ = tree.add(NodeSpec(NodeKind.RESPONSE, parent=second, body="Yes."))
    state = fold([SessionLoaded("s", 6, 1200, 80, 0.25), TreeChanged("s", tree)])
    # the status goes on from what the earlier turns spent
    assert (state.prompt_tokens, state.completion_tokens, state.cost) == (1200, 80, 0.25)
    shown = [(s.prompt, s.title, s.readable.strip()) for s in state.sections]
    assert shown == [
        ("what is it?", "Round 1", "It is 42."),
        ("", "Round 2", "Checked: 42."),
        ("sure?", "Round 3", "Yes."),
    ]
    later = fold([SessionStarted("s", "ai", "m"), TreeChanged("s", tree)])
    assert later.sections == []  # a new session's tree is no history


def test_a_refused_command_is_shown_where_it_was_typed() -> None:
    from tai_core.events import AgentActivated

    state = UiState("s")
    state.commanded = "/nosuch"
    state.apply(Notice("s", "error", "no command /nosuch (/help lists them)"))
    (refused,) = state.sections
    assert refused.title == "/nosuch" and refused.readable.startswith("error: no command")
    state.commanded = "/plan"
    state.apply(AgentActivated("s", "plan", "m", ("response",)))
    state.apply(Notice("s", "error", "a later error of a turn"))
    assert len(state.sections) == 1  # the command was answered: the error is no refusal
    assert state.logs[-1] == ("error", "a later error of a turn")
    state.commanded = "/reload"
    state.apply(RoundStarted("s", 2, 1))  # anything but a notice answers it
    state.apply(RunFailed("s", "the model went away"))
    assert [section.command for section in state.sections] == ["/nosuch", ""]
