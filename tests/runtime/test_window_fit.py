"""The window's edges, to the token: a request that fills the model's window exactly is
sent and one token more is not; block results that fit the room left are passed whole,
one token more and they are cut to fill that room exactly, and with no room at all they
are passed as they are (the next request then fails with the figures).

The pipeline is built directly, on a model of 2000 context tokens (500 kept for the reply:
1500 for a request), a system prompt of 2 tokens and a conversation of one user message,
so every figure here is arithmetic on the token estimate (characters / 4, rounded up)."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from tai_core.models import Message, ModelSpec, estimate_tokens
from tai_core.pipeline import RunOptions
from tai_core.pipeline._attempt import AttemptRunner
from tai_core.pipeline._loop import FEEDBACK_SLACK, Pipeline
from tai_core.pipeline._notes import cut_feedback_note
from tai_core.pipeline._state import RunError, RunState

REQUEST_TOKENS = 1500  # 2000 context tokens less a quarter for the reply
SYSTEM = "SYSTEM"  # 2 tokens


@attrs.frozen
class Context:
    cwd: Path
    command: str = "go"
    config: dict = attrs.field(factory=dict)
    hook: object = None


@pytest.fixture
def pipeline(host, tmp_path: Path) -> Pipeline:
    spec = ModelSpec(name="m", provider="p", type="t", model="m", context_tokens=2000)
    runner = AttemptRunner(
        provider=None, spec=spec, kinds={}, hook=host.pm.hook, emit=lambda event: None,
        session_id="s", command="go",
    )  # fmt: skip
    options = RunOptions(command="go", session_id="s")
    return Pipeline(runner=runner, context=Context(tmp_path), options=options, system=SYSTEM)


def conversation(tokens: int) -> RunState:
    """A state whose one user message is ``tokens`` tokens."""
    state = Pipeline.start_state()
    return attrs.evolve(state, messages=(Message("user", "u" * (tokens * 4)),))


def test_the_window_is_what_the_figures_say(pipeline) -> None:
    assert estimate_tokens(SYSTEM) == 2
    assert pipeline.spec.context_tokens == 2000


def test_a_request_that_fills_the_window_exactly_is_sent(pipeline) -> None:
    request, _, spec = pipeline._request(conversation(REQUEST_TOKENS - 2))
    assert request.system == SYSTEM and len(request.messages) == 1
    assert spec is pipeline.spec


def test_a_request_one_token_over_the_window_is_refused(pipeline) -> None:
    with pytest.raises(RunError, match="would hold about 1501 tokens, more than the 1500"):
        pipeline._request(conversation(REQUEST_TOKENS - 1))


def room_after(message_tokens: int) -> int:
    return REQUEST_TOKENS - 2 - message_tokens - FEEDBACK_SLACK


def test_results_that_fit_the_room_exactly_are_passed_whole(pipeline) -> None:
    room = room_after(100)
    feedback = ["r" * (room * 4 - 3), "s"]  # joined by two newlines: room*4 characters
    assert pipeline._within_window(conversation(100), feedback, "") == feedback


def test_results_one_token_over_the_room_are_cut_to_fill_it(pipeline) -> None:
    room = room_after(100)
    feedback = ["r" * (room * 4 - 3), "st"]
    (cut,) = pipeline._within_window(conversation(100), feedback, "")
    note = cut_feedback_note(room + 1, room)
    assert cut.endswith(f"\n\n{note}")
    assert cut == f"{'r' * (room * 4 - len(note) - 2)}\n\n{note}"
    assert len(cut) == room * 4  # the room, to the character


def test_the_closing_outline_counts_against_the_room(pipeline) -> None:
    room = room_after(100)
    feedback = ["r" * (room * 4)]
    assert pipeline._within_window(conversation(100), feedback, "") == feedback
    (cut,) = pipeline._within_window(conversation(100), feedback, "outline")  # 2 tokens
    assert cut.endswith(cut_feedback_note(room, room - 2))


def test_with_one_token_of_room_only_the_note_is_left(pipeline) -> None:
    message_tokens = REQUEST_TOKENS - 2 - FEEDBACK_SLACK - 1
    assert room_after(message_tokens) == 1
    (cut,) = pipeline._within_window(conversation(message_tokens), ["results"], "")
    assert cut == f"\n\n{cut_feedback_note(2, 1)}"


def test_with_no_room_at_all_the_results_are_passed_as_they_are(pipeline) -> None:
    message_tokens = REQUEST_TOKENS - 2 - FEEDBACK_SLACK
    assert room_after(message_tokens) == 0
    assert pipeline._within_window(conversation(message_tokens), ["results"], "") == ["results"]
