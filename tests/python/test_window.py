"""The model's window as a ceiling: context first, then the focus, lowered and named."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_core.context import ContextError
from tai_core.models import estimate_tokens
from tai_core.testing import project
from tests.python.conftest import collect, part_with


def _tokens(parts: tuple) -> int:
    return sum(estimate_tokens(p.text) for p in parts)


@pytest.fixture
def sized(basic: Path) -> Path:
    body = "".join(
        f'def f{i}(x: int) -> int:\n    """Function {i} does a long thing.\n\n'
        f'    In detail: {"x" * 200}.\n    """\n    return x\n\n'
        for i in range(40)
    )
    return project(basic, {"src/shop/big.py": '"""Big."""\n\n' + body})


def test_without_a_limit_nothing_is_reduced(sized: Path) -> None:
    parts = collect(sized)
    assert all("window" not in p.key for p in parts)


def test_a_small_window_lowers_the_largest_focus_module_and_says_so(sized: Path) -> None:
    full = _tokens(collect(sized))
    parts = collect(sized, max_tokens=full - 500)
    assert _tokens(parts) <= full - 500
    note = part_with(parts, "To fit the model's window")
    assert "- focus module shop.big: brief outline (instead of full outline)" in note.text
    assert "A py-src block naming a module returns its source" in note.text
    assert note.notice.startswith("the Python context was lowered")
    big = part_with(parts, "begin of focus module shop.big")
    assert "Shown as its brief outline" in big.text and "long thing" in big.text
    assert "In detail" not in big.text
    assert collect(sized, max_tokens=full - 500) == parts  # the same inputs, the same cut


def test_a_window_too_small_for_the_least_is_an_error(sized: Path) -> None:
    with pytest.raises(ContextError, match="the Python context needs about"):
        collect(sized, max_tokens=50)
