"""Generators with variants, aliases and redirects: how ``-model a/b`` finds its fields."""

from __future__ import annotations

import pytest

from tai_core.models import ModelConfigError

KEY = {"openai_api_key": "k"}
GENERATORS = [
    {
        "name": "base",
        "aliases": ["b"],
        "type": "openai",
        "model": "big",
        "temperature": 0.5,
        "variants": [
            {"name": "fast", "model": "small", "variants": [{"name": "cold", "temperature": 0.0}]},
            {"name": "quick", "redirect": "now", "variants": [{"name": "now", "model": "tiny"}]},
            {"name": "chilly", "redirect": "/base/fast/cold"},
            {"name": "elsewhere", "redirect": "/other"},
            {"name": "either", "random_redirect": ["/base/fast", "/other"]},
        ],
    },
    {"name": "other", "type": "openai", "model": "theirs"},
    {"name": "loop", "type": "openai", "model": "x", "redirect": "/loop2"},
    {"name": "loop2", "type": "openai", "model": "x", "redirect": "/loop"},
    {"name": "dangling", "type": "openai", "model": "x", "redirect": "/nowhere"},
]


def model_of(resolve, name: str) -> tuple[str, float | None]:
    spec = resolve(name, GENERATORS, **KEY)
    return spec.model, spec.temperature


def test_variants_take_their_parents_fields_and_override_them(resolve) -> None:
    assert model_of(resolve, "base") == ("big", 0.5)
    assert model_of(resolve, "b") == ("big", 0.5)  # an alias of the top
    assert model_of(resolve, "base/fast") == ("small", 0.5)
    assert model_of(resolve, "b/fast/cold") == ("small", 0.0)


def test_redirects_to_a_sub_variant_or_from_the_top(resolve) -> None:
    assert model_of(resolve, "base/quick") == ("tiny", 0.5)  # to base/quick/now
    assert model_of(resolve, "base/chilly") == ("small", 0.0)
    assert model_of(resolve, "base/elsewhere") == ("theirs", None)


def test_a_random_redirect_goes_to_each_choice(resolve) -> None:
    seen = {model_of(resolve, "base/either")[0] for _ in range(64)}
    assert seen == {"small", "theirs"}


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("loop", "model redirects loop: loop -> loop2 -> loop"),
        ("dangling", "model 'dangling' redirects to 'nowhere', which is not configured"),
        ("base/slow", "model 'base/slow': base has no variant 'slow' (variants: fast, quick,"),
        ("base/elsewhere/x", "base/elsewhere has no variant 'x' (variants: none)"),
        ("base/fast/hot", "model 'base/fast/hot': base/fast has no variant 'hot' (variants: cold)"),
        ("other/x", "model 'other/x': other has no variant 'x' (variants: none)"),
    ],
)
def test_what_cannot_be_resolved_says_why(resolve, name: str, message: str) -> None:
    with pytest.raises(ModelConfigError) as caught:
        resolve(name, GENERATORS, **KEY)
    assert message in str(caught.value)
