"""The replay provider: transcript format, expectations, positions and errors."""

from __future__ import annotations

import asyncio

import pytest

from tai_core.models import (
    Finish,
    GenerationRequest,
    Message,
    ModelConfigError,
    RetryPolicy,
    TextDelta,
    ThoughtDelta,
    Usage,
    generate,
)

from .conftest import ask, drain

TRANSCRIPT = """\
# A comment, and a blank line:

@@@ reply
@@@ expect user: fix the bug
@@@ expect system: Go
@@@ thought: The bound is off by one.
@@@ usage input=1200 output=80 cache_read=1000 reasoning=20
@@@ chunk 5
I will change the bound.
<<紫藤 summary
- fixed
紫藤


@@@ reply
@@@ finish length
cut
@@@ reply
@@@ error 429 slow down
@@@ reply
partial
@@@ error 503 gone
"""


@pytest.fixture
def played(tmp_path, resolve, providers):
    """``played(text)`` → ``next_call(request)`` returning (events, error) per call."""

    def setup(text: str, name: str = "t.replay"):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        spec = resolve(f"replay:{path}")
        return spec, lambda request: drain(providers["replay"].stream(spec, request))

    return setup


def test_the_spec(played, tmp_path) -> None:
    spec, _ = played(TRANSCRIPT)
    assert (spec.provider, spec.type, spec.model) == (
        "replay",
        "replay",
        str(tmp_path / "t.replay"),
    )
    assert spec.context_tokens == 1_000_000
    assert spec.zero_data_retention and spec.api_key is None
    assert Usage(input=10, output=10).cost(spec.prices) == 0.0


def test_replies_in_order_with_their_directives(played) -> None:
    _, call = played(TRANSCRIPT)
    request = ask("please fix the bug", system="You write Go.")
    events, error = call(request)
    assert error is None
    assert events[0] == ThoughtDelta("The b")
    assert "".join(e.text for e in events if isinstance(e, ThoughtDelta)) == (
        "The bound is off by one."
    )
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert text == "I will change the bound.\n<<紫藤 summary\n- fixed\n紫藤\n"
    assert all(len(e.text) <= 5 for e in events if isinstance(e, TextDelta))
    assert events[-2:] == [
        Usage(input=1200, cache_read=1000, output=80, reasoning=20),
        Finish("stop"),
    ]
    events, _ = call(request)
    assert events == [TextDelta("cut\n"), Usage(input=7, output=1), Finish("length")]  # len/4
    events, error = call(request)
    assert events == [] and str(error) == f"replay {error.model}: 429 slow down"
    assert error.retryable
    events, error = call(request)
    assert events == [TextDelta("partial\n")]
    assert error.status == 503 and error.retryable
    events, error = call(request)
    assert "call 5 has no reply: the transcript has 4" in str(error)
    assert not error.retryable


def test_directives_may_stand_anywhere_in_a_reply(played) -> None:
    _, call = played("@@@ reply\nAll good.\n@@@ usage input=120 output=30\n")
    events, _ = call(ask())
    assert events == [TextDelta("All good.\n"), Usage(input=120, output=30), Finish("stop")]


@pytest.mark.parametrize(
    ("expectation", "request_", "words"),
    [
        (
            "@@@ expect user: alpha",
            ask("beta"),
            "expected the last user message to contain 'alpha'",
        ),
        ("@@@ expect system: rules", ask(system="none"), "expected the system prompt to contain"),
    ],
)
def test_failed_expectations(played, expectation, request_, words) -> None:
    _, call = played(f"# c\n@@@ reply\n{expectation}\nanswer\n")
    events, error = call(request_)
    assert events == []
    assert f"reply 1 (line 2): {words}" in str(error)
    assert not error.retryable


def test_the_last_user_message_is_checked(played) -> None:
    _, call = played("@@@ reply\n@@@ expect user: second\nok\n")
    turns = (Message("user", "second"), Message("assistant", "a"), Message("user", "third"))
    _, error = call(GenerationRequest(system="", messages=turns))
    assert "it was 'third'" in str(error)


def test_positions_are_kept_per_transcript_and_rewound(played, providers) -> None:
    spec_a, call_a = played("@@@ reply\na1\n@@@ reply\na2\n", "a.replay")
    _, call_b = played("@@@ reply\nb1\n", "b.replay")
    assert call_a(ask())[0][0] == TextDelta("a1\n")
    assert call_b(ask())[0][0] == TextDelta("b1\n")
    assert call_a(ask())[0][0] == TextDelta("a2\n")
    providers["replay"].rewind(spec_a.model)
    assert call_a(ask())[0][0] == TextDelta("a1\n")


def test_generate_retries_a_scripted_rate_limit(played, providers) -> None:
    spec, _ = played("@@@ reply\n@@@ error 429 busy\n@@@ reply\nfine\n")

    async def run():
        return [
            event
            async for event in generate(
                providers["replay"], spec, ask(), policy=RetryPolicy(base_delay=0.001)
            )
        ]

    assert asyncio.run(run())[0] == TextDelta("fine\n")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("hello\n@@@ reply\n", "t.replay:1: text before the first '@@@ reply'"),
        ("# only comments\n", "no '@@@ reply' line"),
        ("@@@ reply\n@@@ expect usr: x\n", "t.replay:2: unknown or malformed directive"),
        ("@@@ reply\n@@@ usage input=x\n", "t.replay:2: usage takes KEY=N"),
        ("@@@ reply\n\n@@@ error abc\n", "t.replay:3: error takes STATUS MESSAGE"),
        ("@@@ reply\n@@@ chunk 0\n", "t.replay:2: unknown or malformed directive '@@@ chunk 0'"),
    ],
)
def test_broken_transcripts_fail_at_resolution(played, text, words) -> None:
    with pytest.raises(ModelConfigError) as caught:
        played(text)
    assert words in str(caught.value)


def test_a_missing_transcript(resolve, tmp_path) -> None:
    with pytest.raises(ModelConfigError, match="does not exist"):
        resolve(f"replay:{tmp_path / 'nope.replay'}")


def test_text_keeps_one_trailing_newline(played) -> None:
    _, call = played("@@@ reply\nno newline at the end")
    events, _ = call(ask())
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "no newline at the end"
    _, call = played("@@@ reply\n  indented\n\n\n@@@ reply\n", "b.replay")
    assert call(ask())[0][0] == TextDelta("  indented\n")
    assert call(ask())[0][:1] == [Usage(input=3, output=0)]
