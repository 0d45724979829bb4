"""HTTP for the protocols spoken directly: streamed POSTs, SSE, faults.

The calls go through :mod:`._transport` (h11 over asyncio, idle connections kept per event
loop and origin: a kept connection saves its TCP and TLS set-up at the next round). TLS
uses :mod:`._tls`'s context, built ahead on a thread; it is asked for only when a call
needs TLS, so a local model over ``http://`` never waits for the certificate bundle.
Proxies come from tai.toml's ``proxy`` or, when the generator does not say ``no_proxy``,
from the usual environment variables. Timeouts are per call: ``read_timeout`` is how long a
stream may go silent before it counts as stalled.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

from tai_core.models import ModelSpec
from tai_provider_kit import _transport
from tai_provider_kit._faults import failure, provider_message, retryable_status, status_failure
from tai_provider_kit._sse import event_data
from tai_provider_kit._tls import tls_context


def _transport_failure(spec: ModelSpec, url: str, error: _transport.TransportError) -> Exception:
    detail = str(error) or type(error).__name__
    if isinstance(error, _transport.Stalled):
        message = f"the stream stalled: no data for {spec.read_timeout:g} s (read timeout)"
    elif isinstance(error, (_transport.UnknownHost, _transport.BadCertificate)):
        return failure(spec, f"cannot connect to {url}: {detail}")  # asking again: the same
    elif isinstance(error, _transport.ConnectTimedOut):
        message = f"timed out reaching {url}: {detail}"
    elif isinstance(error, _transport.ConnectFailed):
        message = f"cannot connect to {url}: {detail}"
    elif isinstance(error, _transport.Cut):
        message = f"the stream was cut: {detail}"
    elif isinstance(error, _transport.NetworkFailed):
        message = f"the connection failed: {detail}"
    else:  # a proxy refusing, an unsupported URL scheme: repeating will not help
        return failure(spec, f"cannot send to {url}: {detail}")
    return failure(spec, message, retryable=True)


@asynccontextmanager
async def post_stream(
    spec: ModelSpec, url: str, headers: Mapping[str, str], body: Mapping[str, Any]
) -> AsyncIterator[_transport.Response]:
    """POST ``body`` as JSON and stream the answer; any HTTP status of 400 or more, and
    any transport failure (also one while the caller reads), is a ProviderError."""
    data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    trust_env = not spec.no_proxy
    try:
        settings = _transport.Settings(
            tls=partial(tls_context, trust_env),
            proxy=spec.proxy,
            trust_env=trust_env,
            read_timeout=spec.read_timeout,
        )
        async with _transport.stream(
            url, {"Content-Type": "application/json", **headers}, data, settings
        ) as response:
            if response.status_code >= 400:
                text = (await response.aread()).decode("utf-8", "replace")
                retry = response.headers.get("retry-after")
                raise status_failure(spec, response.status_code, text, retry)
            yield response
    except _transport.TransportError as error:
        raise _transport_failure(spec, url, error) from error


async def sse_data(spec: ModelSpec, response: _transport.Response) -> AsyncIterator[str]:
    """The ``data`` of each server-sent event of ``response``."""
    content_type = response.headers.get("content-type", "")
    if "text/event-stream" not in content_type:
        text = (await response.aread()).decode("utf-8", "replace")
        found = content_type or "no content type"
        raise failure(
            spec,
            f"expected an event stream, got {found}: {provider_message(text)}",
            status=response.status_code,
        )
    async for data in event_data(response.aiter_bytes()):
        if data:
            yield data


def json_chunk(spec: ModelSpec, data: str) -> dict[str, Any]:
    """One event's data as a JSON object. Anything else is malformed (retryable); an
    ``error`` object inside the stream (OpenRouter and Gemini send them mid-reply) is
    that error, retryable unless its code says otherwise."""
    try:
        chunk = json.loads(data)
    except ValueError:
        chunk = None
    if not isinstance(chunk, dict):
        raise failure(spec, f"malformed stream data: {data[:200]}", retryable=True)
    if "error" in chunk:
        error = chunk["error"]
        if not isinstance(error, dict):
            raise failure(spec, str(error), retryable=True)
        code = error.get("code")
        status = code if isinstance(code, int) else None
        retryable = status is None or retryable_status(status)
        raise failure(spec, str(error.get("message") or error), status=status, retryable=retryable)
    return chunk
