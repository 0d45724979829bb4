"""Where the py provider applies, which provider a directory gets, and focus patterns."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_context_py import PROVIDER
from tai_core.context import ContextError
from tai_core.context._compose import choose, primary_name
from tai_core.plugins import PluginHost
from tai_core.testing import project
from tests.python.conftest import collect, part_with, text_of


@pytest.mark.parametrize("marker", ["pyproject.toml", "setup.cfg", "setup.py"])
def test_applies_at_and_below_a_project_file(tmp_path: Path, marker: str) -> None:
    project(tmp_path, {marker: "", "pkg/deep/x.py": ""})
    assert PROVIDER.applies(tmp_path) and PROVIDER.applies(tmp_path / "pkg/deep")


def test_does_not_apply_without_one(tmp_path: Path) -> None:
    project(tmp_path, {"x.py": "print(1)\n"})
    assert not PROVIDER.applies(tmp_path)


def _chosen(host: PluginHost, cwd: Path, prefer: str | None = None) -> str:
    chosen = choose(host.registry.context_providers.values(), cwd, print, prefer)
    assert chosen is not None
    return primary_name(chosen)


def test_go_first_then_py_then_any(host: PluginHost, tmp_path: Path) -> None:
    project(tmp_path / "py", {"pyproject.toml": ""})
    project(tmp_path / "both", {"pyproject.toml": "", "go.mod": "module m\n"})
    project(tmp_path / "plain", {"notes.txt": ""})
    assert _chosen(host, tmp_path / "py") == "py"
    assert _chosen(host, tmp_path / "both") == "go"
    assert _chosen(host, tmp_path / "plain") == "any"
    assert _chosen(host, tmp_path / "plain", prefer="py") == "py"
    with pytest.raises(ContextError, match="no context provider named 'nope'"):
        _chosen(host, tmp_path, prefer="nope")


def test_focus_patterns_by_name_and_by_directory(basic: Path) -> None:
    by_name = text_of(collect(basic, focus=("shop.prices",)))
    assert "focus module shop.prices" in by_name and "focus module shop.cart" not in by_name
    by_dir = text_of(collect(basic, focus=("tests",)))
    assert "focus module tests.test_cart" in by_dir and "focus module shop.cart" not in by_dir
    with pytest.raises(ContextError, match="focus pattern 'nothing' names no module"):
        collect(basic, focus=("nothing",))


def test_default_focus_below_a_subdirectory(basic: Path) -> None:
    text = text_of(collect(basic / "tests"))
    assert "focus module tests.test_cart" in text and "focus module shop.cart" not in text


def test_without_a_package_every_module_is_focus(tmp_path: Path) -> None:
    project(tmp_path, {"setup.py": "", "tool.py": "def run(): ...\n", "lib/helpers.py": ""})
    text = text_of(collect(tmp_path))
    assert "focus module tool" in text and "focus module lib.helpers" in text


def test_pruned_and_ignored_directories(basic: Path) -> None:
    project(basic, {
        ".venv/lib/python3.11/site-packages/dep/__init__.py": "def dep(): ...\n",
        "build/lib/shop/cart.py": "def built(): ...\n",
        "generated/__init__.py": "", "generated/g.py": "def gen(): ...\n",
        ".gitignore": "generated/\n",
    })  # fmt: skip
    (basic / ".git").mkdir()
    text = text_of(collect(basic))
    assert "def dep" not in text and "def built" not in text and "def gen" not in text


def test_a_python_run_offers_the_python_kinds_and_not_the_go_ones(host: PluginHost) -> None:
    offered = {name for name, kind in host.registry.block_kinds.items() if "py" in kind.commands}
    assert {"py-src", "pytest", "change", "summary", "done", "ingest", "shell"} <= offered
    assert not offered & {"go-src", "go-test", "memory"}


def test_the_project_part_names_what_lies_outside_the_focus(basic: Path) -> None:
    project(basic, {
        "tox.ini": "", "Makefile": "", "docs/index.md": "", "docs/api/ref.md": "",
        "tests/data/sample.json": "{}", "noxfile.py": "",
    })  # fmt: skip
    part = part_with(collect(basic), "begin of python project")
    for name in ("- tox.ini\n", "- Makefile\n", "- noxfile.py\n", "- pyproject.toml\n"):
        assert name in part.text
    assert "- docs/ (2 files)\n" in part.text and "- tests/data/ (1 file)\n" in part.text
    assert "- scripts/ (1 file)\n" in part.text  # a module nobody imports is named too
    assert "src/shop" not in part.text  # the focus directories are named by their parts
    assert not part.notice


def test_a_broken_pyproject_is_said_to_the_model_and_the_user(basic: Path) -> None:
    (basic / "pyproject.toml").write_text('[project\nname = "shop"\n')
    part = part_with(collect(basic), "begin of python project")
    assert "pyproject.toml cannot be read (" in part.text
    assert part.notice.startswith("pyproject.toml cannot be read (")


def test_a_stub_beside_its_module_is_listed_for_ingest(basic: Path) -> None:
    """The module is outlined; its stub, which a signature change must follow, is named
    with the directory's other files (it was dropped without a word)."""
    project(basic, {"src/shop/prices.pyi": "def price_of(item: str) -> float: ...\n",
                    "src/shop/rates.pyi": "RATE: float\n"})  # fmt: skip
    parts = collect(basic)
    files = part_with(parts, "other files of directory src/shop").text
    assert "- src/shop/prices.pyi\n" in files
    assert "TABLE = {" not in files and "rates.pyi" not in files  # a lone stub is outlined
    assert "focus module shop.rates" in text_of(parts)
    assert '"""The price of ``item``."""' in part_with(parts, "focus module shop.prices").text


def test_the_roots_files_are_named_once_when_the_root_holds_focus_modules(
    tmp_path: Path,
) -> None:
    project(tmp_path, {"setup.py": "", "tool.py": "def run(): ...\n", "Makefile": "",
                       "tox.ini": ""})  # fmt: skip
    text = text_of(collect(tmp_path))
    assert text.count("- Makefile\n") == 1 and text.count("- tox.ini\n") == 1
    assert "- setup.py\n" in part_with(collect(tmp_path), "begin of python project").text
