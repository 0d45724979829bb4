"""The one "did you mean" rule, and the messages it answers a misspelt model or type in."""

from __future__ import annotations

import pytest

from tai_core._nearest import did_you_mean, nearest
from tai_core.models import ModelConfigError, resolve_model


def test_the_nearest_first_at_most_n_and_none_that_are_far() -> None:
    names = ["check", "chat", "code", "record", "checkpoints"]
    assert nearest("chek", names) == ["check"]
    assert nearest("chatt", names, n=1) == ["chat"]
    assert nearest("xyz", names) == []
    assert did_you_mean("xyz", names) == ""
    assert did_you_mean("chek", names) == "did you mean 'check'?"
    assert did_you_mean("cod", names, str) == "did you mean code?"


def test_a_name_that_differs_only_in_case_comes_first() -> None:
    ops = ["MODIFY", "modifier", "DELETE"]
    assert nearest("modify", ops) == ["MODIFY", "modifier"]
    assert did_you_mean("Delete", ops) == "did you mean 'DELETE'?"
    assert nearest("MODIFY", ops) == ["MODIFY"]  # the word itself, when known, is offered


def test_spellings_of_the_same_thing_are_offered_once_the_nearest_first() -> None:
    owner = {"openai": "A", "open_ai": "A", "open-ai": "A", "openrouter": "B", "openair": "C"}
    assert nearest("opnai", owner, n=3, same=owner.__getitem__) == ["openai", "openair"]
    assert nearest("open_ai", owner, n=1, same=owner.__getitem__) == ["open_ai"]
    # without `same` every spelling counts against n
    assert nearest("opnai", owner, n=4) == ["openai", "openair", "open_ai", "open-ai"]


def test_a_misspelt_type_gets_the_provider_s_own_spelling(host) -> None:
    providers = host.registry.providers
    config = {"generators": [{"name": "x", "type": "opnai", "model": "m"}]}
    with pytest.raises(ModelConfigError) as caught:
        resolve_model("x", config, providers, {})
    message = str(caught.value)
    assert "which no installed provider serves (did you mean 'openai'? types: " in message
    assert "open_ai" not in message  # the list names each provider once, as it spells itself
    assert ", openai, " in message


def test_a_misspelt_generator_name_gets_the_configured_one(host) -> None:
    config = {"generators": [{"name": "local-coder", "type": "openai", "model": "m"}]}
    with pytest.raises(ModelConfigError) as caught:
        resolve_model("local-codr", config, host.registry.providers, {})
    assert str(caught.value).startswith(
        "unknown model 'local-codr' (did you mean 'local-coder'?): not a configured generator "
        "(local-coder)"
    )
