"""``generate`` waits between retries with asyncio's own sleep when it is given none (the
pipeline never gives one): a failure before output is retried after the policy's delay."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tai_core.models import RetryPolicy, TextDelta, generate
from tests.servers import FakeModelServer, Reply

from .conftest import ask


@pytest.fixture
def spec(resolve: Any, openai_server: FakeModelServer) -> Any:
    generator = {"name": "m", "type": "openai", "model": "gpt-x", "api_key": "k"}
    return resolve("m", [{**generator, "base_url": openai_server.base_url}])


def test_a_retry_waits_with_asyncio_s_sleep(
    providers: Any, spec: Any, openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(fault="500"), Reply(text="done", chunks=1))
    policy = RetryPolicy(attempts=2, base_delay=0.001, max_delay=0.01)

    async def run() -> list[Any]:
        return [event async for event in generate(providers["openai"], spec, ask(), policy=policy)]

    assert TextDelta("done") in asyncio.run(run())
    assert len(openai_server.requests) == 2


@pytest.mark.parametrize(
    ("settings", "attempts", "first_wait"),
    [({}, 4, (0.25, 0.5)), ({"retries": 1, "retry_delay": 3}, 2, (1.5, 3.0)),
     ({"retries": 0}, 1, None)],
)  # fmt: skip
def test_the_generator_sets_how_often_and_how_long(
    providers: Any, resolve: Any, openai_server: FakeModelServer, settings: dict[str, Any],
    attempts: int, first_wait: tuple[float, float] | None,
) -> None:  # fmt: skip
    """``retries`` and ``retry_delay`` of the generator; 3 and 0.5 s when it sets neither."""
    generator = {"name": "m", "type": "openai", "model": "gpt-x", "api_key": "k", **settings}
    spec = resolve("m", [{**generator, "base_url": openai_server.base_url}])
    openai_server.script(*[Reply(fault="500")] * 5)
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def run() -> None:
        async for _ in generate(providers["openai"], spec, ask(), sleep=sleep):
            pass

    with pytest.raises(Exception, match="500"):
        asyncio.run(run())
    assert len(openai_server.requests) == attempts
    assert len(waits) == attempts - 1
    if first_wait is not None:
        assert first_wait[0] <= waits[0] <= first_wait[1]
