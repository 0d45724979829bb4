"""Python projects for the tests: a small generated one, written per test."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from tai_core.context import ContextPart, ContextRequest

BASIC = {
    "pyproject.toml": '[project]\nname = "shop"\nversion = "1.0"\ndependencies = ["attrs>=23"]\n',
    "README.md": "# shop\n",
    "src/shop/__init__.py": '"""The shop: carts and prices."""\n\nfrom shop.cart import Cart\n\n'
    '__all__ = ["Cart"]\n',
    "src/shop/cart.py": '''\
"""Carts hold items and know their total.

THEORY: a cart never stores prices; it asks the price list each time.
"""

from __future__ import annotations

import json

import attrs

from . import prices
from .prices import price_of

#: The most items a cart holds.
LIMIT = 100
THEORY_OF_CARTS = """A cart is a list of item names.
Prices live elsewhere."""
_cache = {}


@attrs.define
class Cart:
    """A customer's cart."""

    items: list[str] = attrs.Factory(list)

    def add(self, item: str, count: int = 1) -> None:
        """Add ``count`` of ``item``."""
        self.items.extend([item] * count)

    @property
    def total(self) -> float:
        """What the items cost together."""
        return sum(price_of(i) for i in self.items) + len(json.dumps(prices.TABLE)) * 0

    def _secret_helper(self) -> int:
        return SECRET_BODY_MARKER

    class Line:
        """One line of a receipt."""

        def render(self) -> str:
            return "line"


async def checkout(cart: Cart, *, pay: bool = True) -> str:
    """Pay for ``cart``."""
    return "BODY_MARKER_CHECKOUT"
''',
    "src/shop/prices.py": '"""Prices of items."""\n\nTABLE = {"apple": 0.5}\n\n\n'
    'def price_of(item: str) -> float:\n    """The price of ``item``."""\n'
    "    return TABLE[item]\n",
    "src/shop/data.json": "{}\n",
    "tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef cart():\n"
    "    from shop.cart import Cart\n\n    return Cart()\n",
    "tests/test_cart.py": "from shop.cart import Cart\n\n\ndef test_add(cart):\n"
    "    cart.add('apple')\n    assert cart.items == ['apple']\n\n\nclass TestTotal:\n"
    "    def test_empty(self):\n        assert Cart().total == 0\n\n"
    "    def helper(self):\n        pass\n",
    "scripts/tool.py": "print('not a package')\n",
}


def write(root: Path, files: Mapping[str, str]) -> Path:
    """Write ``files`` (relative path → text) under ``root``; return ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def basic(tmp_path: Path) -> Path:
    return write(tmp_path / "shop", BASIC)


@pytest.fixture(autouse=True)
def outline_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keep the outline cache of the tests out of the user's cache directory."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "cache"))


def request(cwd: Path, **fields: object) -> ContextRequest:
    return ContextRequest(cwd=cwd, command="py", **fields)  # type: ignore[arg-type]


def collect(cwd: Path, **fields: object) -> tuple[ContextPart, ...]:
    from tai_context_py import PROVIDER

    return PROVIDER.collect(request(cwd, **fields))


def text_of(parts: tuple[ContextPart, ...]) -> str:
    return "".join(part.text for part in parts)


def part_with(parts: tuple[ContextPart, ...], needle: str) -> ContextPart:
    found = [part for part in parts if needle in part.text]
    assert len(found) == 1, [p.text[:80] for p in found]
    return found[0]
