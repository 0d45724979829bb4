"""Every fault of a call over httpx as one ProviderError, and what ``generate`` makes of it."""

from __future__ import annotations

import asyncio
import socket
import time

import attrs
import pytest

from tai_core.models import ProviderError, RetryPolicy, TextDelta, generate
from tests.servers import Reply

from .conftest import ask, drain

TINY = RetryPolicy(attempts=3, base_delay=0.001, max_delay=5.0)


@pytest.fixture
def spec(resolve, openai_server):
    generator = {"name": "m", "type": "openai", "model": "gpt-x", "api_key": "k"}
    return resolve("m", [{**generator, "base_url": openai_server.base_url, "read_timeout": 0.3}])


@pytest.fixture
def openai(providers):
    return providers["openai"]


def fail(openai, spec) -> tuple[list, ProviderError]:
    events, error = drain(openai.stream(spec, ask()))
    assert error is not None
    return events, error


@pytest.mark.parametrize(
    ("status", "retryable"), [("429", True), ("500", True), ("503", True), ("401", False)]
)
def test_http_status(openai, spec, openai_server, status: str, retryable: bool) -> None:
    openai_server.script(Reply(fault=status, message=f"the provider says {status}"))
    events, error = fail(openai, spec)
    assert events == []
    assert error.status == int(status)
    assert error.retryable is retryable
    assert str(error) == f"openai gpt-x: {status} the provider says {status}"


def test_retry_after_is_read_from_a_429(openai, spec, openai_server) -> None:
    openai_server.script(Reply(fault="429", retry_after="7"))
    _, error = fail(openai, spec)
    assert error.retry_after == 7.0


@pytest.mark.parametrize(
    ("header", "low", "high"),
    [("in an hour", 3500.0, 3600.0), ("an hour ago", 0.0, 0.0), ("soon-ish", None, None)],
)
def test_retry_after_as_an_http_date(openai, spec, openai_server, header, low, high) -> None:
    from email.utils import formatdate

    now = time.time()
    value = {"in an hour": formatdate(now + 3600, usegmt=True),
             "an hour ago": formatdate(now - 3600, usegmt=True)}.get(header, header)  # fmt: skip
    openai_server.script(Reply(fault="429", retry_after=value))
    _, error = fail(openai, spec)
    if low is None:
        assert error.retry_after is None
    else:
        assert low <= error.retry_after <= high


def test_a_body_without_error_object_is_quoted(openai, spec, openai_server) -> None:
    openai_server.script(Reply(fault="400", body="Bad Request: model gpt-x\nis unknown"))
    _, error = fail(openai, spec)
    assert str(error) == "openai gpt-x: 400 Bad Request: model gpt-x is unknown"
    assert not error.retryable


def test_connection_refused_is_retryable(openai, spec) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    closed = attrs.evolve(spec, base_url=f"http://127.0.0.1:{port}/v1")
    _, error = fail(openai, closed)
    assert error.retryable and error.status is None
    assert f"cannot connect to http://127.0.0.1:{port}/v1/chat/completions" in str(error)


@pytest.fixture
def resolver(monkeypatch: pytest.MonkeyPatch):
    """The system's resolver, but for names under ``.test``, which get the answer given
    (no resolver here can be made to say a name does not exist, or to be down)."""
    real = socket.getaddrinfo
    answer: list[int] = []
    words = {socket.EAI_NONAME: "Name or service not known", socket.EAI_AGAIN: "Temporary failure"}

    def getaddrinfo(host, *args, **kwargs):
        if isinstance(host, str) and host.endswith(".test"):
            raise socket.gaierror(answer[0], words[answer[0]])
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return answer


@pytest.mark.parametrize(
    ("code", "retryable"), [(socket.EAI_NONAME, False), (socket.EAI_AGAIN, True)]
)
def test_a_host_name_that_does_not_exist_is_not_asked_again(
    openai, spec, resolver: list[int], code: int, retryable: bool
) -> None:
    """A typo in ``base_url`` fails at once; a resolver that did not answer (offline for a
    moment) is worth the retries."""
    resolver.append(code)
    _, error = fail(openai, attrs.evolve(spec, base_url="https://api.example.test/v1"))
    assert error.retryable is retryable and error.status is None
    assert "cannot connect to https://api.example.test/v1/chat/completions" in str(error)
    assert ("api.example.test is not a known host name" in str(error)) is not retryable


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        ("drop", "the stream was cut"),
        ("badjson", "malformed stream data"),
        ("stall", "the stream stalled: no data for 0.3 s"),
    ],
)
def test_faults_mid_stream_keep_what_was_yielded(openai, spec, openai_server, fault, words):
    openai_server.script(Reply(text="abcdefgh", chunks=4, fault=fault))
    events, error = fail(openai, spec)
    assert events == [TextDelta("ab"), TextDelta("cd")]
    assert error.retryable
    assert words in str(error)


def test_an_error_object_inside_the_stream(openai, spec, openai_server) -> None:
    # OpenRouter reports an upstream failure mid-reply as a data line with an error object.
    openai_server.script(Reply(text="abcd", chunks=2, fault="error", message="upstream died"))
    events, error = fail(openai, spec)
    assert events == [TextDelta("ab")]
    assert str(error) == "openai gpt-x: 502 upstream died" and error.retryable


def test_a_body_ending_without_finish_or_done_was_cut(openai, spec, openai_server) -> None:
    openai_server.script(Reply(text="abcd", chunks=2, fault="truncate"))
    events, error = fail(openai, spec)
    assert events == [TextDelta("ab")]
    assert "the stream was cut: it ended without a finish reason" in str(error)
    assert error.retryable


def run_generate(provider, spec, policy=TINY):
    """Events of ``generate``, its error, and the delays it asked for."""
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    async def run():
        seen = []
        try:
            async for event in generate(provider, spec, ask(), policy=policy, sleep=sleep):
                seen.append(event)
        except ProviderError as error:
            return seen, error
        return seen, None

    events, error = asyncio.run(run())
    return events, error, delays


def test_generate_retries_failures_before_output(openai, spec, openai_server) -> None:
    openai_server.script(
        Reply(fault="429", retry_after="2"), Reply(fault="500"), Reply(text="done", chunks=1)
    )
    events, error, delays = run_generate(openai, spec)
    assert error is None and TextDelta("done") in events
    assert len(openai_server.requests) == 3
    assert delays[0] == 2.0  # the provider's Retry-After
    assert delays[1] < 0.01  # the policy's backoff


def test_generate_gives_up_after_the_attempts(openai, spec, openai_server) -> None:
    openai_server.script(*[Reply(fault="503")] * 3)
    _, error, delays = run_generate(openai, spec)
    assert error is not None and error.status == 503
    assert len(delays) == 2 and len(openai_server.requests) == 3


def test_generate_does_not_retry_a_refusal(openai, spec, openai_server) -> None:
    openai_server.script(Reply(fault="401"))
    _, error, delays = run_generate(openai, spec)
    assert error.status == 401 and delays == [] and len(openai_server.requests) == 1


def test_generate_raises_at_once_after_partial_output(openai, spec, openai_server) -> None:
    openai_server.script(Reply(text="abcdefgh", chunks=4, fault="drop"), Reply(text="unused"))
    events, error, delays = run_generate(openai, spec)
    assert events == [TextDelta("ab"), TextDelta("cd")]
    assert error.retryable and delays == []
    assert openai_server.pending == 1


def test_backoff_doubles_per_attempt_with_jitter_in_its_upper_half() -> None:
    from tai_core.models import RetryPolicy

    policy = RetryPolicy(attempts=9, base_delay=1.0, max_delay=1000.0)
    error = ProviderError("p", "m", "busy", retryable=True)
    for attempt in range(5):
        ceiling = 2.0**attempt
        delays = [policy.delay(attempt, error) for _ in range(400)]
        assert all(ceiling / 2 <= d <= ceiling for d in delays), (attempt, min(delays))
        assert min(delays) < ceiling * 0.6 and max(delays) > ceiling * 0.9  # jitter spans it
    assert RetryPolicy(base_delay=1.0, max_delay=3.0).delay(5, error) == 3.0


def test_on_retry_is_told_the_next_attempt_its_wait_and_the_error(
    openai, spec, openai_server
) -> None:
    openai_server.script(Reply(fault="429", retry_after="2"), Reply(fault="500"), Reply(text="ok"))
    told: list[tuple[int, float, int | None]] = []

    async def run() -> None:
        async def sleep(seconds: float) -> None:
            return None

        async for _ in generate(
            openai, spec, ask(), policy=TINY, sleep=sleep,
            on_retry=lambda attempt, delay, error: told.append((attempt, delay, error.status)),
        ):  # fmt: skip
            pass

    asyncio.run(run())
    assert [(a, s) for a, _, s in told] == [(1, 429), (2, 500)]
    assert told[0][1] == 2.0
