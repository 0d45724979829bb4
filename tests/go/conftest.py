"""Small Go modules written into temporary directories, and the requests that load them."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from tai_core.context import ContextPart, ContextRequest


@pytest.fixture(scope="session")
def go_build_cache() -> str:
    """The Go build cache of the user (``go env GOCACHE``, before any test moves
    ``XDG_CACHE_HOME``): content-addressed, so sharing it is safe, and it spares every
    session compiling the standard library again for the documentation helper."""
    found = subprocess.run(["go", "env", "GOCACHE"], capture_output=True, text=True)
    return found.stdout.strip()


@pytest.fixture(autouse=True)
def doc_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, go_build_cache: str
) -> None:
    """Keep the go doc cache (and the documentation helper) of the tests out of the
    user's cache directory; the Go build cache stays the user's."""
    if go_build_cache:
        monkeypatch.setenv("GOCACHE", go_build_cache)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "cache"))


def write(root: Path, files: Mapping[str, str]) -> Path:
    """Write ``files`` (relative path → text) under ``root``; return ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def commit(root: Path, *paths: str) -> None:
    """Commit ``paths`` in the repository at ``root`` (created when missing)."""
    if not (root / ".git").exists():
        git(root, "init", "-q")
    git(root, "add", *paths)
    git(root, "commit", "-q", "-m", "change", "--allow-empty")


GO_MOD = "module example.com/m\n\ngo 1.22\n"

#: A module: package ``a`` (documented, a theory constant, tests, a text file) imports
#: ``b``; ``cmd/tool`` is a main package; ``a`` also imports fmt (the standard library).
BASIC = {
    "go.mod": GO_MOD,
    "README.md": "# m\n",
    "a/a.go": """\
// Package a parses things.
package a

import (
\t"fmt"

\t"example.com/m/b"
)

// TheoryOfParsing says why parsing is split in two steps: the lexer never allocates.
const TheoryOfParsing = "Parsing runs in two steps. " +
\t"The lexer never allocates."

// Parse parses s.
func Parse(s string) string { return fmt.Sprint(b.Join(s, helper())) }

func helper() string { return "x" }

// Lexer reads tokens.
type Lexer struct{ pos int }

// Next advances.
func (l *Lexer) Next() int { l.pos++; return l.pos }

const (
\t// First is one.
\tFirst = 1
\tSecond = 2
)
""",
    "a/a_test.go": """\
package a

import "testing"

func TestParse(t *testing.T) { _ = Parse("") }

func BenchmarkParse(b *testing.B) {}

func notATest() {}
""",
    "a/ext_test.go": 'package a_test\n\nimport "testing"\n\nfunc FuzzParse(f *testing.F) {}\n',
    "a/notes.txt": "notes of a\n",
    "b/b.go": "package b\n\n// Join joins.\nfunc Join(a, b string) string { return a + b }\n",
    "cmd/tool/main.go": "package main\n\nfunc main() {}\n",
}


@pytest.fixture
def basic(tmp_path: Path) -> Path:
    root = write(tmp_path / "m", BASIC)
    return root


def request(cwd: Path, **fields: object) -> ContextRequest:
    return ContextRequest(cwd=cwd, command="go", **fields)  # type: ignore[arg-type]


def collect(cwd: Path, **fields: object) -> tuple[ContextPart, ...]:
    from tai_context_go import PROVIDER

    return PROVIDER.collect(request(cwd, **fields))


def text_of(parts: tuple[ContextPart, ...]) -> str:
    return "".join(part.text for part in parts)


def part_with(parts: tuple[ContextPart, ...], marker: str) -> ContextPart:
    (found,) = [part for part in parts if marker in part.text]
    return found
