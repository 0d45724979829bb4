"""One model call with bounded retries: the transport-level half of fault handling.

A call that fails *before* producing anything, with a retryable error (rate limit, server
error, connection refused, a stream cut or stalled before its first event), is repeated
after a delay: the provider's ``Retry-After`` when it gave one, else exponential backoff
with jitter. A call that fails *after* output raises at once: what was already streamed
cannot be taken back, and the pipeline retries the whole round from its snapshot with the
partial output noted (the round-level half, see the pipeline).

A provider reports failures as :class:`ProviderError`. Anything else it raises (a bug, or an
SDK's exception it did not translate) is turned into one, naming the provider and the
exception, and treated as retryable: a transport error that slipped through is the common
case, and a bug costs a few seconds of retries before the same one-line error — never a
traceback, never an "internal error".
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import attrs

from tai_core.models._provider import Provider
from tai_core.models._values import GenerationRequest, ModelSpec, ProviderError, StreamEvent


@attrs.frozen
class RetryPolicy:
    """How often and how patiently a failing call is repeated."""

    attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 20.0

    @classmethod
    def of(cls, spec: ModelSpec) -> RetryPolicy:
        """The policy a model's generator sets (``retries``, ``retry_delay``)."""
        return cls(attempts=spec.retries + 1, base_delay=spec.retry_delay)

    def delay(self, attempt: int, error: ProviderError) -> float:
        """Seconds to wait before attempt ``attempt + 1`` (``attempt`` counts from 0)."""
        if error.retry_after is not None:
            return min(error.retry_after, self.max_delay)
        import random  # only when a call failed: a start does not pay for it

        backoff = self.base_delay * (2**attempt)
        return min(backoff * (0.5 + random.random() / 2), self.max_delay)


OnRetry = Callable[[int, float, ProviderError], None]


async def generate(
    provider: Provider,
    spec: ModelSpec,
    request: GenerationRequest,
    *,
    policy: RetryPolicy | None = None,
    on_retry: OnRetry | None = None,
    sleep: Callable[[float], Awaitable[None]] | None = None,
) -> AsyncIterator[StreamEvent]:
    """Stream ``request`` through ``provider``, retrying failures that produced nothing:
    as ``policy`` says, or else as the model's generator does (:meth:`RetryPolicy.of`).

    ``on_retry(attempt, delay, error)`` is told before each wait. The last error is raised
    when the attempts run out.
    """
    if sleep is None:
        import asyncio

        sleep = asyncio.sleep
    rules = policy or RetryPolicy.of(spec)
    attempt = 0
    while True:
        produced = False
        try:
            try:
                async for event in provider.stream(spec, request):
                    produced = True
                    yield event
            except ProviderError:
                raise
            except Exception as error:  # any failure of a plugin's code
                raise _foreign(provider, spec, error) from error
        except ProviderError as error:
            if produced or not error.retryable or attempt + 1 >= rules.attempts:
                raise
            delay = rules.delay(attempt, error)
            if on_retry is not None:
                on_retry(attempt + 1, delay, error)
            await sleep(delay)
            attempt += 1
            continue
        return


def _foreign(provider: Provider, spec: ModelSpec, error: Exception) -> ProviderError:
    """``error``, raised by ``provider`` where a :class:`ProviderError` belongs, as one."""
    where = f"provider {provider.name!r} raised"  # registration checked it has one
    return ProviderError(spec.provider, spec.model, f"{where} {type(error).__name__}: {error}",
                         retryable=True)  # fmt: skip
