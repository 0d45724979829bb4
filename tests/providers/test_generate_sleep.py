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
