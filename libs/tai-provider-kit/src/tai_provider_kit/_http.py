"""HTTP for the protocols spoken directly: shared clients, streamed POSTs, SSE, faults.

One ``httpx.AsyncClient`` is kept per event loop, base URL and proxy setting and reused
for every call: building a client costs ~48 ms (mostly its TLS context, which
:mod:`._tls` builds ahead on a thread) against ~2 ms for a whole streamed call on a warm
one, and a kept client keeps its connections alive. The key includes the event loop
because an async connection belongs to the loop that opened it. Proxies come from
tai.toml's ``proxy`` or, through ``trust_env``, from the usual environment variables; a
generator's ``no_proxy`` dials directly. Timeouts are per call: ``read_timeout`` is how
long a stream may go silent before it counts as stalled.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from tai_core.models import ModelSpec
from tai_provider_kit._faults import failure, provider_message, retryable_status, status_failure
from tai_provider_kit._httpx import EventSource, httpx
from tai_provider_kit._tls import tls_context

_ClientKey = tuple[str, str | None, bool]
_CLIENTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[_ClientKey, httpx.AsyncClient]]
_CLIENTS = weakref.WeakKeyDictionary()

#: Seconds to open a connection (and to wait for a free one in the pool).
CONNECT_TIMEOUT = 15.0


def shared_client(spec: ModelSpec) -> httpx.AsyncClient:
    """The client of this event loop for ``spec``'s base URL and proxy settings."""
    clients = _CLIENTS.setdefault(asyncio.get_running_loop(), {})
    key = (spec.base_url or "", spec.proxy, spec.no_proxy)
    client = clients.get(key)
    if client is None or client.is_closed:
        client = clients[key] = httpx.AsyncClient(
            proxy=spec.proxy, trust_env=not spec.no_proxy, follow_redirects=True,
            verify=tls_context(not spec.no_proxy),
        )  # fmt: skip
    return client


def _timeout(spec: ModelSpec) -> httpx.Timeout:
    return httpx.Timeout(spec.read_timeout, connect=CONNECT_TIMEOUT, pool=CONNECT_TIMEOUT)


def _transport_failure(spec: ModelSpec, url: str, error: httpx.TransportError) -> Exception:
    detail = str(error) or type(error).__name__
    if isinstance(error, httpx.ReadTimeout):
        message = f"the stream stalled: no data for {spec.read_timeout:g} s (read timeout)"
    elif isinstance(error, httpx.TimeoutException):
        message = f"timed out reaching {url}: {detail}"
    elif isinstance(error, httpx.ConnectError):
        message = f"cannot connect to {url}: {detail}"
    elif isinstance(error, httpx.RemoteProtocolError):
        message = f"the stream was cut: {detail}"
    elif isinstance(error, httpx.NetworkError):
        message = f"the connection failed: {detail}"
    else:  # a proxy refusing, an unsupported URL scheme: repeating will not help
        return failure(spec, f"cannot send to {url}: {detail}")
    return failure(spec, message, retryable=True)


@asynccontextmanager
async def post_stream(
    spec: ModelSpec, url: str, headers: Mapping[str, str], body: Mapping[str, Any]
) -> AsyncIterator[httpx.Response]:
    """POST ``body`` as JSON and stream the answer; any HTTP status of 400 or more, and
    any transport failure (also one while the caller reads), is a ProviderError."""
    client = shared_client(spec)
    try:
        async with client.stream(
            "POST", url, headers=headers, json=body, timeout=_timeout(spec)
        ) as response:
            if response.status_code >= 400:
                text = (await response.aread()).decode("utf-8", "replace")
                retry = response.headers.get("retry-after")
                raise status_failure(spec, response.status_code, text, retry)
            yield response
    except httpx.TransportError as error:
        raise _transport_failure(spec, url, error) from error


async def sse_data(spec: ModelSpec, response: httpx.Response) -> AsyncIterator[str]:
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
    async for event in EventSource(response).aiter_sse():
        if event.data:
            yield event.data


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
