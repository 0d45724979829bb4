"""The handoff writer, against the replay model."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tai_core.models import resolve_model
from tai_core.pipeline._handoff import HandoffWriter

from .conftest import transcript

LOST = "I read parse.go and found that splitUnit keeps the first letter. " * 3


def writer(host, path: Path) -> HandoffWriter:
    spec = resolve_model(f"replay:{path}", {}, host.registry.providers, {})
    return HandoffWriter(host.registry.providers[spec.provider], spec)


def test_the_note_is_the_handoff_block(host, tmp_path: Path) -> None:
    path = transcript(
        tmp_path / "h.replay",
        ["@@@ expect system: handoff assistant\n@@@ expect user: splitUnit keeps\n"
         "<<紫藤 handoff\nsplitUnit keeps the unit letter; fix the slice.\n紫藤"],
    )  # fmt: skip
    assert (
        asyncio.run(writer(host, path)(LOST)) == "splitUnit keeps the unit letter; fix the slice."
    )


NOTE = "<<紫藤 handoff\nthe note\n紫藤"


def test_short_attempts_are_not_worth_a_call(host, tmp_path: Path) -> None:
    path = transcript(tmp_path / "h.replay", [NOTE])  # a call would get a note
    assert asyncio.run(writer(host, path)("x" * 99)) is None
    assert asyncio.run(writer(host, path)("x" * 100)) == "the note"


FAILURES = ["@@@ error 400 bad request", "no block here", "<<紫藤 summary\n- not a handoff\n紫藤"]


def test_the_third_attempt_may_still_write_the_note(host, tmp_path: Path) -> None:
    path = transcript(tmp_path / "h.replay", [*FAILURES[:2], NOTE])
    assert asyncio.run(writer(host, path)(LOST)) == "the note"


def test_three_failures_give_no_handoff(host, tmp_path: Path) -> None:
    path = transcript(tmp_path / "h.replay", [*FAILURES, NOTE])  # a fourth call would succeed
    assert asyncio.run(writer(host, path)(LOST)) is None


def test_the_handoff_call_keeps_the_models_temperature(host, openai_server) -> None:
    from tests.servers import Reply

    openai_server.script(Reply(text=NOTE))
    generator = {"name": "h", "type": "openai", "model": "m", "api_key": "k", "temperature": 0.3}
    config = {"generators": [{**generator, "base_url": openai_server.base_url}]}
    spec = resolve_model("h", config, host.registry.providers, {})
    note = asyncio.run(HandoffWriter(host.registry.providers[spec.provider], spec)(LOST))
    assert note == "the note"
    (request,) = openai_server.requests
    assert request.body["temperature"] == 0.3
    assert request.body["messages"][0]["content"].startswith("You are a handoff assistant.")
