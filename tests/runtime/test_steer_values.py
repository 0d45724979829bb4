"""The values steering makes (tai_core.pipeline._steer), directly: the conversation after an
interruption, the steering text added to the last message, and the pending text taken."""

from __future__ import annotations

from tai_core.models import Message
from tai_core.pipeline._steer import (
    INTERRUPTED,
    STEERED_HEADING,
    Steering,
    interrupted,
    with_steering,
)

CONVERSATION = (Message("user", "q1"), Message("assistant", "a1"), Message("user", "q2"))


def test_an_interrupted_reply_and_the_user_s_words_follow_the_conversation() -> None:
    after = interrupted(CONVERSATION, "half of it  \n", "do it in Python")
    assert after == (
        *CONVERSATION,
        Message("assistant", f"half of it\n\n{INTERRUPTED}"),
        Message("user", "do it in Python"),
    )
    assert interrupted(CONVERSATION, "  ", "x")[-2] == Message("assistant", INTERRUPTED)


def test_steering_text_joins_the_last_message() -> None:
    after = with_steering(CONVERSATION, "and be brief")
    assert after == (
        CONVERSATION[0], CONVERSATION[1],
        Message("user", f"q2\n\n{STEERED_HEADING}\n\nand be brief"),
    )  # fmt: skip


def test_pending_text_is_taken_once_joined_by_paragraphs() -> None:
    steering = Steering()
    steering.add("one")  # outside a race: nothing waits, nothing breaks
    steering.add("two")
    assert steering.take() == "one\n\ntwo"
    assert steering.take() == "" and steering.pending == []
