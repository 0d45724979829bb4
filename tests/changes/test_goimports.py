"""Getting goimports: the user's own first, else tai's cache, installed from the module proxy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tai_changes import goimports
from tai_changes.goimports import ToolError, goimports_binary


@pytest.fixture(autouse=True)
def fresh_lookup(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(goimports, "_found", {})


@pytest.mark.slow
def test_an_explicit_path_is_installed_there_and_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "tools" / "goimports"
    monkeypatch.setenv("TAI_GOIMPORTS", str(target))
    assert goimports_binary() == target
    assert os.access(target, os.X_OK)
    assert [p.name for p in target.parent.iterdir()] == ["goimports"]
    formatted = subprocess.run(
        [str(target)], input="package p\nfunc f(){fmt.Println()}\n",
        capture_output=True, text=True, check=True, env=goimports.tool_env(),
    ).stdout  # fmt: skip
    assert formatted == 'package p\n\nimport "fmt"\n\nfunc f() { fmt.Println() }\n'


def test_goimports_on_path_is_preferred(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    own = tmp_path / "goimports"
    own.write_text("#!/bin/sh\ncat\n")
    own.chmod(0o755)
    monkeypatch.delenv("TAI_GOIMPORTS", raising=False)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert goimports_binary() == own


def test_an_unwritable_destination_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAI_GOIMPORTS", "/proc/tai-cannot-be-here/goimports")
    with pytest.raises(ToolError, match=r"cannot install goimports into /proc/tai-cannot-be-here"):
        goimports_binary()


def test_the_install_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tai_changes.goimports", "--install"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("goimports: /") and done.stderr == ""
    usage = subprocess.run(
        [sys.executable, "-m", "tai_changes.goimports"], capture_output=True, text=True
    )
    assert usage.returncode == 2 and "usage:" in usage.stderr
