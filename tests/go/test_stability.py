"""Prefix stability: a focus edit moves nothing before the focus tier (same inputs, same
bytes across processes: tests/test_determinism.py)."""

from __future__ import annotations

from pathlib import Path

from tai_core.context import TIER_FOCUS
from tests.go.conftest import GO_MOD, collect, commit, write


def module(root: Path) -> Path:
    files = {"go.mod": GO_MOD, "README.md": "r\n"}
    for i in range(6):
        imports = f'import "example.com/m/lib{i - 1}"\n\nvar _ = lib{i - 1}.V\n' if i else ""
        files[f"lib{i}/lib.go"] = (
            f"// Package lib{i} is a library.\npackage lib{i}\n\n{imports}\n"
            f"// V is v.\nvar V = {i}\n"
        )
    files["app/app.go"] = (
        'package app\n\nimport "example.com/m/lib5"\n\n'
        "// Run runs.\nfunc Run() int { return lib5.V }\n"
    )
    files["app/app_test.go"] = 'package app\n\nimport "testing"\n\nfunc TestRun(t *testing.T) {}\n'
    write(root, files)
    commit(root, ".")
    return root


def test_a_focus_edit_keeps_everything_before_the_focus_identical(tmp_path: Path) -> None:
    root = module(tmp_path)
    before = collect(root, focus=("./app",))
    write(
        root,
        {"app/app.go": (root / "app/app.go").read_text() + "\n// Stop stops.\nfunc Stop() {}\n"},
    )
    after = collect(root, focus=("./app",))
    prefix = lambda parts: [p for p in parts if p.tier < TIER_FOCUS]  # noqa: E731
    assert prefix(before) == prefix(after) and prefix(before)
    focus_after = next(p for p in after if p.tier == TIER_FOCUS).text
    assert "func Stop()" in focus_after  # the doc cache saw the edit
