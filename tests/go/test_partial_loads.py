"""Partial loads are normal: packages that fail to load are named, one line each, and the
context goes on with the rest; a load that cannot be made at all is one clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_core.context import ContextError
from tests.go.conftest import BASIC, GO_MOD, collect, part_with, text_of, write

FAILED = "begin of packages that failed to load"


def _failed_lines(parts) -> list[str]:
    text = part_with(parts, FAILED).text
    return [line for line in text.splitlines() if line.startswith("- ")]


def test_a_dependency_nobody_serves_is_named_and_the_rest_is_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOPROXY", "off")
    root = write(
        tmp_path / "m",
        {
            "go.mod": GO_MOD,
            "a/a.go": 'package a\n\nimport "example.invalid/gone/pkg"\n\nvar X = pkg.Y\n',
            "c/c.go": "// Package c is fine.\npackage c\n\n// Z is z.\nconst Z = 1\n",
        },
    )
    parts = collect(root)
    (line,) = _failed_lines(parts)
    assert line.startswith("- example.invalid/gone/pkg: a/a.go:3:8: ")
    assert "GOPROXY=off" in line
    assert "Package c is fine." in part_with(parts, "focus package example.com/m/c").text
    assert "var X = pkg.Y" in part_with(parts, "focus package example.com/m/a").text


def test_a_package_with_a_syntax_error_is_named_and_stays_in_focus(tmp_path: Path) -> None:
    root = write(tmp_path / "m", {**BASIC, "b/b.go": "packag b\n"})
    parts = collect(root)
    (line,) = _failed_lines(parts)
    assert line.startswith("- example.com/m/b: ") and "b/b.go:1:1" in line
    outline_b = part_with(parts, "focus package example.com/m/b").text
    assert "go doc failed" in outline_b and "- b/b.go" in outline_b
    assert "TheoryOfParsing" in part_with(parts, "focus package example.com/m/a").text


def test_a_whole_load_failure_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOTOOLCHAIN", "local")  # never fetch go1.99 instead
    write(
        tmp_path / "dep", {"go.mod": "module example.com/dep\n\ngo 1.99\n", "d.go": "package dep\n"}
    )
    root = write(
        tmp_path / "m",
        {
            "go.mod": GO_MOD
            + "\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ../dep\n",
            "a/a.go": 'package a\n\nimport _ "example.com/dep"\n',
        },
    )
    with pytest.raises(ContextError) as failure:
        collect(root)
    message = str(failure.value)
    assert "\n" not in message and "requires go >= 1.99" in message


def test_a_clean_load_names_no_failures(basic: Path) -> None:
    assert FAILED not in text_of(collect(basic))
