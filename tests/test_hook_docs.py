"""Every hook is documented: in its docstring (template) and in docs/plugin-hooks.md."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

from tai_core import hookspecs
from tai_core.plugins import PluginHost

from .conftest import REPO

DOC = (REPO / "docs" / "plugin-hooks.md").read_text(encoding="utf-8")


def all_hooks() -> list[str]:
    """The hooks the plugin manager knows: the source of truth, not the docs."""
    pm = PluginHost().pm
    return sorted(name for name in vars(pm.hook) if name.startswith("tai_"))


def test_the_manager_knows_every_spec_in_hookspecs() -> None:
    specs = sorted(name for name in dir(hookspecs) if name.startswith("tai_"))
    assert all_hooks() == specs
    assert len(specs) >= 15


@pytest.mark.parametrize("name", all_hooks())
def test_hook_is_in_the_reference(name: str) -> None:
    params = inspect.signature(getattr(hookspecs, name)).parameters
    assert f"## {name}({', '.join(params)})\n" in DOC


@pytest.mark.parametrize("name", all_hooks())
def test_hook_docstring_follows_the_template(name: str) -> None:
    function = getattr(hookspecs, name)
    doc = inspect.getdoc(function) or ""
    for param in inspect.signature(function).parameters:
        assert f":param {param}:" in doc, f"{name}: {param} undocumented"
    assert ":return:" in doc
    assert "Where it may be implemented:" in doc
    assert "Called " in doc  # who calls it, and when
    if function.tai_spec.get("firstresult"):
        assert "first" in doc.lower()


def test_reference_is_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "hook_docs.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
