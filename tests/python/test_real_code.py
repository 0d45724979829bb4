"""The Python context on real code nobody here wrote: the pinned attrs and click sources."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

from tai_core.models import estimate_tokens
from tai_core.plugins import PluginHost
from tests.python.conftest import collect, part_with, text_of
from tests.python.test_py_src import fetch

pytestmark = pytest.mark.slow


def _bodies(root: Path, package: str) -> list[str]:
    """A distinctive statement line from the body of every function of ``package`` (none
    that a docstring quotes: docstrings are in the outline by design)."""
    found = []
    for file in sorted((root / "src" / package).glob("*.py")):
        source = file.read_text()
        lines = source.splitlines()
        tree = ast.parse(source)
        quoted = "".join(
            ast.get_docstring(node) or ""
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        )
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.body:
                last = node.body[-1]
                line = lines[last.lineno - 1].strip()
                if len(line) > 40 and not isinstance(last, ast.Expr) and line not in quoted:
                    found.append(line)
    return found


@pytest.mark.parametrize(("name", "package"), [("attrs", "attr"), ("click", "click")])
def test_outline_of_a_real_project(
    pinned_sdist: Callable[[str], Path], name: str, package: str
) -> None:
    root = pinned_sdist(name)
    parts = collect(root)
    text = text_of(parts)
    outline = sum(estimate_tokens(p.text) for p in parts)
    source = sum(estimate_tokens(p.text) for p in collect(root, all_src=True))
    assert outline < 0.5 * source
    bodies = _bodies(root, package)
    assert len(bodies) > 40
    assert [line for line in bodies if line in text] == []
    assert f"begin of focus module {package}" in text


def test_real_outline_details(pinned_sdist: Callable[[str], Path]) -> None:
    parts = collect(pinned_sdist("click"))
    core = part_with(parts, "begin of focus module click.core").text
    assert "class Command(BaseCommand):" in core
    assert "    def invoke(self, ctx: Context) -> t.Any:" in core
    assert "class ParameterSource(enum.Enum):" in core
    tests = part_with(parts, "begin of focus module tests.test_basic").text
    assert "- test_basic_functionality\n" in tests


def test_py_src_of_real_methods(host: PluginHost, pinned_sdist: Callable[[str], Path]) -> None:
    root = pinned_sdist("attrs")
    collect(root)
    text = fetch(
        host, root, "attr._make._ClassBuilder.build_class\nattr.validators.instance_of"
    ).text
    assert "    def build_class(self):" in text and "# src/attr/_make.py:" in text
    assert "def instance_of(type):" in text
    assert "not found" not in text
