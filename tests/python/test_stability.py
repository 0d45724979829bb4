"""Prefix stability: editing a focus module changes no byte before its part, and the same
tree gives the same bytes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.python.conftest import collect, text_of


def _prefix_kept(root: Path, module: Path, old: str, new: str) -> tuple[str, str]:
    before = collect(root)
    module.write_text(module.read_text().replace(old, new))
    after = collect(root)
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    assert changed, "the edit changed nothing"
    first = changed[0]
    assert text_of(before[:first]) == text_of(after[:first])
    return before[first].path, after[first].path


def test_a_body_edit_changes_nothing_before_the_focus_module(basic: Path) -> None:
    assert text_of(collect(basic)) == text_of(collect(basic))
    # a body edit changes no byte of the outline at all
    cart = basic / "src/shop/cart.py"
    before = text_of(collect(basic))
    cart.write_text(cart.read_text().replace('"BODY_MARKER_CHECKOUT"', '"paid"'))
    assert text_of(collect(basic)) == before
    # a signature edit changes the module's own part, nothing before it
    assert _prefix_kept(basic, cart, "pay: bool = True", "pay: bool = False") == (
        "src/shop/cart.py", "src/shop/cart.py",
    )  # fmt: skip


@pytest.mark.slow
def test_prefix_on_real_code(tmp_path: Path, pinned_sdist: Callable[[str], Path]) -> None:
    import shutil

    root = tmp_path / "click"
    shutil.copytree(pinned_sdist("click"), root)
    core = root / "src/click/core.py"
    paths = _prefix_kept(root, core, "def invoke(self, ctx: Context) -> t.Any:",
                         "def invoke(self, ctx: Context, extra: int = 0) -> t.Any:")  # fmt: skip
    assert paths == ("src/click/core.py", "src/click/core.py")
