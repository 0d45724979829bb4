"""py-src blocks: names resolved against the load's snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_core import Block, BlockResult
from tai_core.plugins import PluginHost
from tai_kind_py_src import PySrcKind
from tests.conftest import run_context
from tests.python.conftest import collect


def fetch(host: PluginHost, cwd: Path, body: str) -> BlockResult:
    block = Block(kind="py-src", delimiter="W", params={}, body=body, line=1, start=0, end=0)
    return PySrcKind().execute(block, run_context(host, cwd))


@pytest.fixture
def loaded(basic: Path) -> Path:
    collect(basic)
    return basic


def test_a_method_with_its_decorator_and_lines(host: PluginHost, loaded: Path) -> None:
    result = fetch(host, loaded, "shop.cart.Cart.total")
    assert result.ok
    assert "# src/shop/cart.py:32-35\n    @property\n    def total(self) -> float:" in result.text
    assert "return sum(price_of(i)" in result.text


def test_short_names_modules_and_nested(host: PluginHost, loaded: Path) -> None:
    text = fetch(host, loaded, "checkout\nCart.Line.render\nshop.prices\nTestTotal.test_empty").text
    assert '    return "BODY_MARKER_CHECKOUT"' in text
    assert 'return "line"' in text
    assert "# src/shop/prices.py (module shop.prices)\n" in text and "return TABLE[item]" in text
    assert "assert Cart().total == 0" in text


def test_a_missing_name_answers_with_the_closest(host: PluginHost, loaded: Path) -> None:
    text = fetch(host, loaded, "shop.cart.Cart.ad").text
    assert "shop.cart.Cart.ad: not found" in text and "shop.cart.Cart.add" in text


def test_an_ambiguous_short_name_asks_for_the_module(host: PluginHost, loaded: Path) -> None:
    (loaded / "src/shop/other.py").write_text("def checkout():\n    pass\n")
    collect(loaded)
    assert "ambiguous" in fetch(host, loaded, "checkout").text
    assert "pass" in fetch(host, loaded, "shop.other.checkout").text


def test_empty_body_gets_a_usage_hint(host: PluginHost, loaded: Path) -> None:
    result = fetch(host, loaded, "\n  \n")
    assert not result.ok and "write one name per line" in result.text


def test_source_is_the_snapshot_taken_at_load(host: PluginHost, loaded: Path) -> None:
    (loaded / "src/shop/prices.py").write_text("def price_of(item):\n    return 42\n")
    text = fetch(host, loaded, "shop.prices.price_of").text
    assert "return TABLE[item]" in text and "42" not in text


def test_cold_fetch_loads_the_project(host: PluginHost, basic: Path) -> None:
    assert "return TABLE[item]" in fetch(host, basic, "shop.prices.price_of").text


def test_file_paths_and_pytest_node_ids_name_what_they_name(host: PluginHost, loaded: Path) -> None:
    text = fetch(host, loaded, "src/shop/prices.py\ntests/test_cart.py::TestTotal::test_empty").text
    assert "# src/shop/prices.py (module shop.prices)\n" in text
    assert "assert Cart().total == 0" in text and "not found" not in text
