"""Every failure of a model call as one :class:`ProviderError` line.

Whatever the transport (:mod:`._transport` here, litellm's for Azure and Bedrock), a failure
becomes one line naming provider, model, status and the provider's own words, with
``retryable`` set by one rule: rate limits, server errors and broken transports may
succeed if repeated; refusals (401, 400, …) will not. Repeating is not done here but by
:func:`tai_core.models.generate`, which alone knows whether output was already produced.
"""

from __future__ import annotations

import json
import time

from tai_core.models import ModelSpec, ProviderError

#: Longest provider message kept in an error line.
MESSAGE_LIMIT = 500


def retryable_status(status: int) -> bool:
    """Rate limits, timeouts, conflicts and server errors may pass when repeated."""
    return status in (408, 409, 429) or status >= 500


def provider_message(body: str) -> str:
    """The provider's own message in a response body: the JSON ``error.message`` (also
    in a one-element list, as Gemini sends), a top-level ``message``, else the text."""
    try:
        payload = json.loads(body)
    except ValueError:
        payload = None
    if isinstance(payload, list) and payload:
        payload = payload[0]
    if isinstance(payload, dict):
        error = payload.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if isinstance(error, str) and error:
            return error
        if payload.get("message"):
            return str(payload["message"])
    return body.strip() or "(empty response body)"


def retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime  # ten modules, for the rare HTTP date

    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def failure(
    spec: ModelSpec,
    message: str,
    *,
    status: int | str | None = None,
    retryable: bool = False,
    retry_after: float | None = None,
) -> ProviderError:
    """The error of a call of ``spec``; ``message`` is folded onto one line."""
    line = " ".join(message.split())
    if len(line) > MESSAGE_LIMIT:
        line = line[: MESSAGE_LIMIT - 1] + "…"
    return ProviderError(
        spec.provider,
        spec.model,
        line,
        status=status,
        retryable=retryable,
        retry_after=retry_after,
    )


def status_failure(
    spec: ModelSpec, status: int, body: str, retry_after_header: str | None = None
) -> ProviderError:
    """The error of an HTTP ``status`` answered with ``body``."""
    return failure(
        spec,
        provider_message(body),
        status=status,
        retryable=retryable_status(status),
        retry_after=retry_after(retry_after_header) if status in (429, 503) else None,
    )
