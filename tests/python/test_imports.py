"""The import graph inside the project, and third-party imports with installed versions."""

from __future__ import annotations

from pathlib import Path

from tai_core.testing import project
from tai_python._imports import Installed, resolve_imports
from tests.python.conftest import collect

PROJECT = frozenset({"pkg", "pkg.a", "pkg.sub", "pkg.sub.b", "top"})


def test_absolute_relative_and_from_imports() -> None:
    imports = [
        [0, "pkg.a", []],  # import pkg.a
        [1, "", ["b"]],  # from . import b (inside pkg.sub)
        [2, "a", ["x"]],  # from ..a import x
        [0, "top", []],
        [0, "os.path", []],  # the standard library: neither
        [0, "yaml", []],  # third party
        [0, "annotationlib", []],  # the standard library of 3.14, not of the Python running
        [0, "distutils.core", []],  # and of Pythons before 3.12
        [0, "pkg.sub", ["b", "*"]],
        [5, "toofar", []],  # beyond the top: ignored
    ]
    inside, outside = resolve_imports("pkg.sub.c", False, imports, PROJECT)
    assert inside == ("pkg.a", "pkg.sub", "pkg.sub.b", "top")
    assert outside == ("yaml",)


def test_a_package_resolves_relative_imports_from_itself() -> None:
    inside, _ = resolve_imports("pkg.sub", True, [[1, "b", []], [2, "a", []]], PROJECT)
    assert inside == ("pkg.a", "pkg.sub.b")


def _dist(site: Path, name: str, version: str, top: str | None, record: str = "") -> None:
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n")
    if top:
        (info / "top_level.txt").write_text(top + "\n")
    if record:
        (info / "RECORD").write_text(record)


def test_installed_versions_come_from_the_projects_environment(tmp_path: Path) -> None:
    site = tmp_path / ".venv/lib/python3.11/site-packages"
    _dist(site, "PyYAML", "6.0.2", "yaml")
    _dist(site, "attrs", "25.3.0", None, "attr/__init__.py,,\nattrs/__init__.py,,\n")
    _dist(site, "no_top", "1.0", None, "no_top_pkg/x.py,sha,1\n../../bin/tool,,\n")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["PyYAML>=6", "attrs"]\n'
        '[project.optional-dependencies]\ndev = ["pytest>=8"]\n'
    )
    installed = Installed.of(tmp_path)
    assert installed.environment == ".venv/lib/python3.11/site-packages"
    assert installed.describe("yaml") == "yaml — PyYAML 6.0.2 installed — required as 'PyYAML>=6'"
    assert installed.describe("attr") == "attr — attrs 25.3.0 installed — required as 'attrs'"
    assert installed.describe("no_top_pkg") == "no_top_pkg — no_top 1.0 installed"
    assert installed.describe("pytest") == (
        "pytest — not installed in .venv/lib/python3.11/site-packages — required as 'pytest>=8'"
    )


def test_context_modules_are_what_the_focus_imports(basic: Path) -> None:
    project(basic, {"src/shop/unused.py": '"""Nobody imports this."""\n\ndef lonely(): ...\n'})
    parts = collect(basic, focus=("shop.cart",))
    # within the budget the water-filling raises a small context module to its source
    (prices,) = [part for part in parts if part.path == "src/shop/prices.py"]
    assert prices.tier == 1 and "def price_of(item: str) -> float:" in prices.text
    assert "begin of context file src/shop/prices.py" in prices.text
    assert all("lonely" not in part.text for part in parts)
    assert all("focus module shop.prices" not in part.text for part in parts)
