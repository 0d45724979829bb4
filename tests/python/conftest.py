"""Python projects for the tests: a small generated one for the context, a calculator for
pytest runs (kept quick), each written per test."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tai_core.context import ContextPart, ContextRequest
from tai_core.testing import project

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


CALC = {
    "pyproject.toml": (
        '[project]\nname = "calc"\nversion = "0"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
    ),
    "calc.py": "def add(a, b):\n    return a + b\n",
    "tests/test_calc.py": """\
from calc import add


def test_add():
    assert add(1, 2) == 3


def test_wrong():
    assert add(2, 2) == 5, "wrong on purpose"
""",
    # Runs only when CALC_HANG names a marker: starts a child in the test's process group,
    # says so in a file, then waits for ever.
    "tests/test_hang.py": """\
import os
import subprocess
import time
from pathlib import Path

import pytest


@pytest.mark.skipif(not os.environ.get("CALC_HANG"), reason="hangs on purpose")
def test_hang():
    subprocess.Popen(["sleep", os.environ["CALC_HANG"]])
    Path(os.environ["CALC_STARTED"]).write_text("started")
    time.sleep(3600)
""",
}


@pytest.fixture
def calc(tmp_path: Path) -> Path:
    """The calc project: one passing test, one failing, one that hangs when asked."""
    return project(tmp_path / "calc", CALC)


@pytest.fixture(autouse=True)
def quick_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    """``python3`` on PATH is the Python running these tests (it has pytest), and pytest
    loads no plugins of this environment (hypothesis, xdist …): seconds saved per run."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


@pytest.fixture
def basic(tmp_path: Path) -> Path:
    return project(tmp_path / "shop", BASIC)


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
