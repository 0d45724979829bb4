"""The focus outline's test names and theory constants, against ``go test`` and ``go doc``.

The names must be the functions ``go test`` runs, read from a parse that survives what a
test file holds (nested literals, func literals, raw strings with braces, backquotes and
``func Test`` lines, comments with braces, generics, build tags, ``//line`` directives),
and a file that does not parse must not hide the tests after its broken function. A
theory constant ``go doc`` printed is not repeated, however ``go doc`` re-laid it out.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tai_go import _render
from tests.go.conftest import GO_MOD, collect, part_with, write

SOURCE = """\
// Package t keeps tables.
package t

// TheoryOfTables says why tables are values: a test that edits one edits only its copy.
// go doc drops the comments between the lines of the value and re-aligns nothing here.
const TheoryOfTables = "Tables are values. " + // a copy per test
\t"Rows never alias. " + /* no sharing */
\t"Cells are strings."

const (
\t// TheoryOfRows is grouped; gofmt aligns the values of the group.
\tTheoryOfRows = "A row is a slice."
\tWidth        = 3 // cells per row
)

// theoryOfLayout holds Go code, and lines go doc could take for declarations.
var theoryOfLayout = `Layout is code:
func TestInTheory(t *testing.T) {
}
const Hidden = 1
`

// Cell is one cell.
type Cell[T any] struct{ V T }
"""

TESTS = """\
//go:build !never

package t

import (
\t"fmt"
\t"os"
\ttesting "testing"
)

type suite struct{}

func (suite) TestMethod(t *testing.T) {}

func TestMain(m *testing.M) { os.Exit(m.Run()) }

func TestTable(t *testing.T) {
\tcases := []struct {
\t\tname  string
\t\tcells map[string][]Cell[int]
\t\tcheck func(int) bool
\t}{
\t\t{"one", map[string][]Cell[int]{"a": {{V: 1}, {V: 2}}}, func(n int) bool { return n > 0 }},
\t\t{name: "braces", check: func(int) bool {
\t\t\tswitch x := any(struct{ s string }{"}"}).(type) {
\t\t\tcase interface{ M() }:
\t\t\t\t_ = x
\t\t\t}
\t\t\treturn true
\t\t}},
\t}
\t// a comment with a } brace and a { brace
\t/* func TestInComment(t *testing.T) { */
\traw := `}` + "`" + `{
func TestInRaw(t *testing.T) {
}
`
\t_ = '}'
\tfor _, c := range cases {
\t\tt.Run(c.name, func(t *testing.T) { _ = raw })
\t}
}

//line generated.go:10
func TestAfterLine(t *testing.T) {}

func Testable() {}

func helper[T any](t *testing.T, v T) T { return v }

func TestUsesHelper(t *testing.T) { helper(t, Cell[string]{V: "{"}) }

func BenchmarkTable(b *testing.B) {}

func FuzzTable(f *testing.F) {}

func ExampleCell() {
\tfmt.Println("cell")
\t// Output: cell
}

func Example_unlisted() {}
"""

#: What go test runs (Example_unlisted has no output comment: compiled, not run).
RUN = ["BenchmarkTable", "ExampleCell", "FuzzTable", "TestAfterLine", "TestTable",
       "TestUsesHelper"]  # fmt: skip


def listed(module: Path, package: str) -> set[str]:
    """What ``go test -list '.*'`` prints for ``package``: the tests, benchmarks and fuzz
    tests, and the examples that have an output comment (the ones it would run)."""
    done = subprocess.run(
        ["go", "test", "-list", ".*", package], cwd=module, capture_output=True, text=True,
        timeout=600, check=True,
    )  # fmt: skip
    return {line for line in done.stdout.splitlines() if not line.startswith(("ok ", "? "))}


def outline_names(text: str) -> list[str]:
    names = text.split("Test functions in this package")[1].split("\n\n", maxsplit=1)[0]
    return [line.removeprefix("- ") for line in names.splitlines()[1:]]


@pytest.fixture
def tables(tmp_path: Path) -> Path:
    return write(tmp_path / "m", {"go.mod": GO_MOD, "t/t.go": SOURCE, "t/t_test.go": TESTS})


@pytest.mark.slow
def test_test_names_are_what_go_test_runs(tables: Path) -> None:
    text = part_with(collect(tables), "begin of focus package example.com/m/t").text
    names = outline_names(text)
    assert names == sorted([*RUN, "Example_unlisted"])
    assert listed(tables, "./t") == set(RUN)


def test_printed_theory_constants_are_not_repeated(tables: Path) -> None:
    text = part_with(collect(tables), "begin of focus package example.com/m/t").text
    assert "Full text of the theory constants" not in text
    # go doc printed each of them (without the comments inside TheoryOfTables' value)
    assert '"Rows never alias. " +\n' in text and "a copy per test" not in text
    assert 'TheoryOfRows = "A row is a slice."' in text and "func TestInTheory" in text


def test_theory_constants_are_shown_when_go_doc_did_not_print_them() -> None:
    source = SOURCE.encode()
    outline = _render.focus_outline(
        "example.com/m/t", doc=None, error="exit status 1", sources={"t.go": source},
        tests={}, file_names=["t.go"], read_only=False,
    )  # fmt: skip
    assert "(go doc failed: exit status 1;" in outline
    assert "Full text of the theory constants" in outline
    assert outline.count("a copy per test") == 1 and outline.count("func TestInTheory") == 1
    # a documentation that prints only some of them: the others are shown
    doc = 'package t\n\nconst (\n\tTheoryOfRows = "A row is a slice."\n\tWidth = 3\n)\n'
    shown = _render.theory_texts([source], doc)
    assert [text.split("\n")[-1] for text in shown] == ['\t"Cells are strings."', "`"]


def test_a_test_file_that_does_not_parse_keeps_its_later_tests() -> None:
    """Mid-task a test file may not parse (go test cannot list it then); the names after
    the broken function must survive. Called directly: here a load of a package whose
    test file does not parse fails at ``go list``, before any outline."""
    broken = TESTS.replace("\t\tt.Run(c.name, func(t *testing.T) { _ = raw })\n\t}\n", "")
    assert "t.Run" not in broken  # TestTable's loop is left open
    assert _render.test_names([broken.encode()]) == sorted([*RUN, "Example_unlisted"])


PACKAGES = {"cobra": [".", "./doc"],
            "tools": ["./internal/imports", "./go/ast/astutil", "./txtar"]}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "package"), [(name, package) for name, ps in PACKAGES.items() for package in ps]
)
def test_names_on_real_code_equal_go_test_list(
    pinned: Callable[[str], Path], name: str, package: str
) -> None:
    """On pinned public modules, tai lists what ``go test -list`` lists, plus the examples
    without an output comment (go test compiles them but never runs them, so ``-list``
    leaves them out; tai lists them because their source is worth fetching)."""
    module = pinned(name)
    parts = collect(module, focus=(package,))
    focus = [p for p in parts if "begin of focus package" in p.text]
    assert len(focus) == 1
    names = set(outline_names(focus[0].text))
    run = listed(module, package)
    assert run <= names
    for extra in names - run:
        assert extra.startswith("Example"), extra
        files = (module / package).glob("*_test.go")
        source = next(
            text for f in files if re.search(rf"^func {extra}\(", text := f.read_text(), re.M)
        )
        body = source.split(f"\nfunc {extra}(", 1)[1].split("\n}\n", 1)[0]
        assert not re.search(r"//\s*(Unordered output|Output):", body, re.I), extra
