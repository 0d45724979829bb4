"""go-test blocks: go test with the block's arguments, in the reference's feedback shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_core import Block, BlockResult
from tai_core.plugins import PluginHost
from tai_kind_go_test import GoTestKind, split_arguments
from tests.conftest import run_context
from tests.go.conftest import GO_MOD, write

MODULE = {
    "go.mod": GO_MOD,
    "p/p.go": "package p\n\nfunc Add(a, b int) int { return a + b }\n",
    "p/p_test.go": """\
package p

import (
\t"os"
\t"testing"
\t"time"
)

func TestAdd(t *testing.T) {
\tif Add(1, 2) != 3 {
\t\tt.Fatal("bad")
\t}
}

func TestWrong(t *testing.T) { t.Fatal("wrong on purpose") }

func TestSlow(t *testing.T) {
\tif os.Getenv("SLOW") != "" || true {
\t\ttime.Sleep(time.Minute)
\t}
}
""",
}


def run(host: PluginHost, cwd: Path, body: str, **config: object) -> BlockResult:
    block = Block(kind="go-test", delimiter="W", params={}, body=body, line=1, start=0, end=0)
    return GoTestKind().execute(block, run_context(host, cwd, config=config))


@pytest.fixture
def module(tmp_path: Path) -> Path:
    return write(tmp_path, MODULE)


def test_pass(host: PluginHost, module: Path) -> None:
    result = run(host, module, "-run ^TestAdd$\n./p")
    head = f"Working directory: {module}\nGo test command: go test -run '^TestAdd$' ./p\n\n"
    assert result.ok and result.text.startswith(head + "Tests passed.\nStdout:\nok ")
    assert GoTestKind.triggers_round


def test_fail(host: PluginHost, module: Path) -> None:
    result = run(host, module, "-run\n^TestWrong$\n./...")
    assert not result.ok
    assert (
        "Go test command: go test -run '^TestWrong$' ./...\n\n"
        "Tests failed with error: exit status 1\n" in result.text
    )
    assert "wrong on purpose" in result.text and "\nStderr:\n" in result.text


@pytest.mark.slow
def test_timeout_kills_the_run(host: PluginHost, module: Path) -> None:
    result = run(host, module, "-run ^TestSlow$ ./p", go_test_timeout=3)
    assert not result.ok and "Tests failed: timed out after 3 s" in result.text


def test_argument_splitting() -> None:
    assert split_arguments("") == ["./..."]
    assert split_arguments("-run '^Test A$'\n-v") == ["-run", "^Test A$", "-v"]
    for bad in ("-exec=sh", "-toolexec\nx", "-run 'open"):
        with pytest.raises(ValueError):
            split_arguments(bad)


def test_refused_arguments_are_fed_back(host: PluginHost, module: Path) -> None:
    result = run(host, module, "-exec /bin/sh")
    assert not result.ok and "-exec is not allowed" in result.text
