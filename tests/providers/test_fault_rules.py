"""The rules that turn a failed call into one ProviderError line (tai_provider_kit._faults),
rule by rule: which statuses may pass when repeated, where the provider's own words are,
how a long message is cut, when Retry-After counts."""

from __future__ import annotations

import pytest

from tai_core.models import ModelSpec
from tai_provider_kit._faults import (
    MESSAGE_LIMIT,
    failure,
    provider_message,
    retry_after,
    retryable_status,
    status_failure,
)

SPEC = ModelSpec(name="m", provider="openai", type="openai", model="gpt-x")


@pytest.mark.parametrize(
    ("status", "retryable"),
    [(408, True), (409, True), (429, True), (500, True), (503, True), (599, True),
     (400, False), (401, False), (403, False), (404, False), (410, False), (422, False)],
)  # fmt: skip
def test_which_statuses_may_pass_when_repeated(status: int, retryable: bool) -> None:
    assert retryable_status(status) is retryable


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('{"error": {"message": "quota spent", "code": 429}}', "quota spent"),
        ('[{"error": {"message": "from a list"}}, {"error": {"message": "second"}}]',
         "from a list"),
        ('{"error": {"message": ""}, "message": "top level"}', "top level"),
        ('{"error": "a plain string"}', "a plain string"),
        ('{"error": "", "message": "fallback"}', "fallback"),
        ('{"error": {"code": 5}}', '{"error": {"code": 5}}'),
        ('{"message": 42}', "42"),
        ("[]", "[]"),
        ('"just a string"', '"just a string"'),
        ("  Bad Gateway\n", "Bad Gateway"),
        ("  ", "(empty response body)"),
    ],
)  # fmt: skip
def test_the_providers_own_words(body: str, message: str) -> None:
    assert provider_message(body) == message


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("7", 7.0), ("0.5", 0.5), ("-3", 0.0), ("", None), (None, None), ("soon", None)],
)
def test_retry_after_in_seconds(value: str | None, seconds: float | None) -> None:
    assert retry_after(value) == seconds


def test_a_message_is_one_line_cut_at_the_limit() -> None:
    assert failure(SPEC, "a\n  b\tc").message == "a b c"
    exact = "x" * MESSAGE_LIMIT
    assert failure(SPEC, exact).message == exact
    cut = failure(SPEC, exact + "y").message
    assert cut == "x" * (MESSAGE_LIMIT - 1) + "…" and len(cut) == MESSAGE_LIMIT
    assert failure(SPEC, "m").retryable is False


@pytest.mark.parametrize(("status", "kept"), [(429, 3.0), (503, 3.0), (500, None), (504, None)])
def test_retry_after_counts_for_rate_limits_and_unavailable(status: int, kept) -> None:
    error = status_failure(SPEC, status, '{"error": {"message": "busy"}}', "3")
    assert (error.status, error.message, error.retry_after) == (status, "busy", kept)
    assert error.retryable
