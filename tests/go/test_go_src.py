"""go-src blocks: symbol resolution against the load's snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_core import Block, BlockResult
from tai_core.plugins import PluginHost
from tai_go._symbols import HEADER
from tai_kind_go_src import GoSrcKind
from tests.conftest import run_context
from tests.go.conftest import GO_MOD, collect, write

EXTRA = {
    # declared name differs from the directory; a generic type with a method
    "internal/store/s.go": """\
package kv

// Map is a map.
type Map[K comparable, V any] struct{ m map[K]V }

// Get gets.
func (m *Map[K, V]) Get(k K) V { return m.m[k] }

var (
\tlimit = 3
\t// Max is the largest size.
\tMax = 10
)
""",
}


def fetch(host: PluginHost, cwd: Path, body: str) -> BlockResult:
    block = Block(kind="go-src", delimiter="W", params={}, body=body, line=1, start=0, end=0)
    return GoSrcKind().execute(block, run_context(host, cwd))


@pytest.fixture
def loaded(basic: Path) -> Path:
    write(basic, EXTRA)
    collect(basic)
    return basic


def test_qualifiers_path_suffix_and_name(host: PluginHost, loaded: Path) -> None:
    for query in ("example.com/m/a.Parse", "m/a.Parse", "a.Parse", "Parse", "a.parse"):
        result = fetch(host, loaded, query)
        assert result.ok and result.text.startswith(HEADER), query
        assert (
            "``` begin of source example.com/m/a.Parse a/a.go:15\n// Parse parses s.\n"
            in result.text
        )
        assert result.text.endswith("``` end of source example.com/m/a.Parse\n\n")


def test_declared_name_generic_methods_and_pointers(host: PluginHost, loaded: Path) -> None:
    text = fetch(host, loaded, "kv.Map.Get\n*Map[K, V].Get\nstore.Map").text
    assert (
        text.count("begin of source example.com/m/internal/store.Map.Get internal/store/s.go:7")
        == 1
    )
    assert "func (m *Map[K, V]) Get(k K) V" in text
    assert "begin of source example.com/m/internal/store.Map internal/store/s.go:4" in text


def test_grouped_specs_come_alone(host: PluginHost, loaded: Path) -> None:
    text = fetch(host, loaded, "kv.Max\nFirst").text
    assert "// Max is the largest size.\n\tMax = 10\n``` end" in text and "limit" not in text
    assert "\t// First is one.\n\tFirst = 1\n```" in text and "Second" not in text


def test_case_rule(host: PluginHost, loaded: Path) -> None:
    assert "a.Lexer.Next" in fetch(host, loaded, "lexer.next").text  # lower matches either
    missing = fetch(host, loaded, "LEXER.Next").text  # upper matches only upper
    assert "Symbol LEXER.Next was not found" in missing and "a.Lexer.Next" in missing
    assert "not found" in fetch(host, loaded, "Pars").text  # equal length only


def test_package_documentation_and_tests(host: PluginHost, loaded: Path) -> None:
    text = fetch(host, loaded, "example.com/m/a\nb\nTestParse\nTestParse").text
    assert "``` begin of source package example.com/m/a\n" in text
    assert "func helper() string" in text  # focus packages: -u
    assert "``` begin of source package example.com/m/b\n" in text
    assert text.count("begin of source example.com/m/a.TestParse a/a_test.go:5") == 1


def test_qualified_miss_retries_the_qualifier_as_a_type(host: PluginHost, tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "go.mod": GO_MOD,
            "t/t.go": "package t\n",
            "u/u.go": "package u\n\ntype t struct{}\n\nfunc (t) Run() {}\n",
        },
    )
    collect(root)
    assert "begin of source example.com/m/u.t.Run" in fetch(host, root, "t.Run").text


def test_not_found_names_the_closest(host: PluginHost, loaded: Path) -> None:
    text = fetch(host, loaded, "a.Parze").text
    assert "Symbol a.Parze was not found in the loaded packages. Closest symbols: a.Parse" in text


def test_empty_body_gets_a_usage_hint(host: PluginHost, loaded: Path) -> None:
    result = fetch(host, loaded, "\n  \n")
    assert not result.ok and result.text.count("\n") == 1 and "one symbol per line" in result.text


def test_source_is_the_snapshot_taken_at_load(host: PluginHost, loaded: Path) -> None:
    write(loaded, {"b/b.go": "package b\n\n// Join is new.\nfunc Join() {}\n"})
    assert "Join joins." in fetch(host, loaded, "b.Join").text
    collect(loaded)  # the next collect refreshes it
    assert "Join is new." in fetch(host, loaded, "b.Join").text


def test_cold_load_and_loading_failure(host: PluginHost, tmp_path: Path) -> None:
    root = write(tmp_path / "cold", {"go.mod": GO_MOD, "p/p.go": "package p\n\nfunc Cold() {}\n"})
    assert "begin of source example.com/m/p.Cold p/p.go:3" in fetch(host, root, "Cold").text
    broken = write(tmp_path / "broken", {"go.mod": "module\n"})
    result = fetch(host, broken, "Anything")
    assert not result.ok and result.text.startswith(HEADER + "Info: the Go packages could not")
