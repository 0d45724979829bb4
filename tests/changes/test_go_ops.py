"""Go change operations through the real parser and the real goimports.

The cases of the original's acceptance list (const-spec ADD, keywordless bodies, package and
import variants, DELETE *, WRITE, multi-entity dedupe, one trailing newline, build tags),
and the failures this version adds where the original silently succeeded.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tai_changes import ChangeError, apply_change, finish_changes
from tai_changes.goimports import go_binary
from tai_core.plugins import PluginHost
from tai_core.store import FileStore, pending_diff

from .conftest import block, run_round, write_files


def apply_go(module: Path, original: str, *blocks) -> str:
    """The content of test.go after a round of ``blocks`` over ``original``."""
    write_files(module, {"test.go": original})
    run_round(module, *blocks)
    return (module / "test.go").read_text()


def gofmt(text: str) -> str:
    gofmt_path = go_binary().resolve().parent / "gofmt"
    return subprocess.run(
        [str(gofmt_path)], input=text, capture_output=True, text=True, check=True
    ).stdout


def test_add_before_a_const_spec_goes_before_its_group(module: Path) -> None:
    original = "package x\n\nconst (\n\tbbb = 1\n\tccc = 2\n\tddd = 3\n)\n"
    result = apply_go(
        module, original, block("ADD_BEFORE", "test.go", "const aaa = 42", target="ccc")
    )
    assert result == "package x\n\nconst aaa = 42\n\nconst (\n\tbbb = 1\n\tccc = 2\n\tddd = 3\n)\n"


@pytest.mark.parametrize(
    ("original", "target", "body", "expected"),
    [
        (
            'package x\n\nconst disableContainerEnv = "CONTAINER"\n',
            "disableContainerEnv",
            "newFeature = true",
            'package x\n\nconst newFeature = true\n\nconst disableContainerEnv = "CONTAINER"\n',
        ),
        (
            "package x\n\nconst (\n\tbbb = 1\n\tccc = 2\n)\n",
            "ccc",
            "aaa = 42",
            "package x\n\nconst aaa = 42\n\nconst (\n\tbbb = 1\n\tccc = 2\n)\n",
        ),
        (
            "package x\n\nfunc existing() {}\n",
            "existing",
            "newFunc() {}",
            "package x\n\nfunc newFunc() {}\n\nfunc existing() {}\n",
        ),
        (
            "package x\n\ntype A int\n",
            "A",
            "B struct{ X int }",
            "package x\n\ntype B struct{ X int }\n\ntype A int\n",
        ),
    ],
    ids=["single-const", "grouped-const", "func", "type"],
)
def test_keywordless_bodies_get_their_keyword(
    module: Path, original: str, target: str, body: str, expected: str
) -> None:
    assert (
        apply_go(module, original, block("ADD_BEFORE", "test.go", body, target=target)) == expected
    )


def test_modify_package_with_and_without_keyword(module: Path) -> None:
    original = 'package oldpkg\n\nimport "fmt"\n\nfunc Foo() { fmt.Println("hello") }\n'
    for body in ("package newpkg", "newpkg"):
        result = apply_go(module, original, block("MODIFY", "test.go", body, target="package"))
        assert result.startswith("package newpkg\n") and "oldpkg" not in result


@pytest.mark.parametrize("target", ["package", "import"])
def test_package_and_import_take_only_modify(module: Path, target: str) -> None:
    write_files(module, {"test.go": 'package x\n\nimport "fmt"\n\nfunc Foo() { fmt.Println() }\n'})
    with pytest.raises(ChangeError, match="only supports MODIFY"):
        apply_change(FileStore.open(module), block("ADD_BEFORE", "test.go", "x", target=target))


def test_modify_import_replaces_all_imports(module: Path) -> None:
    original = (
        'package x\n\nimport (\n\t"fmt"\n)\n\nimport "strings"\n\n'
        'func Foo() { fmt.Println(strings.ToUpper("a")); os.Exit(0) }\n'
    )
    body = 'import (\n\t"fmt"\n\t"os"\n\t"strings"\n)'
    result = apply_go(module, original, block("MODIFY", "test.go", body, target="import"))
    assert result.count("import") == 1
    assert '\t"fmt"\n\t"os"\n\t"strings"\n' in result


def test_modify_import_adds_to_a_file_without_imports(module: Path) -> None:
    original = 'package x\n\nfunc Foo() { fmt.Println("hello") }\n'
    result = apply_go(module, original, block("MODIFY", "test.go", '"fmt"', target="import"))
    assert result == 'package x\n\nimport "fmt"\n\nfunc Foo() { fmt.Println("hello") }\n'


def test_modify_import_with_empty_body_removes_all_and_goimports_readds_used(
    module: Path,
) -> None:
    original = 'package x\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc Foo() { fmt.Println("hello") }\n'
    result = apply_go(module, original, block("MODIFY", "test.go", "", target="import"))
    assert result == 'package x\n\nimport "fmt"\n\nfunc Foo() { fmt.Println("hello") }\n'


def test_write_go_file_is_formatted(module: Path) -> None:
    result = apply_go(
        module,
        "package x\n\nfunc Old() {}\n",
        block("WRITE", "test.go", "package x\nfunc New()   {\nfmt.Println(1)\n}"),
    )
    assert result == 'package x\n\nimport "fmt"\n\nfunc New() {\n\tfmt.Println(1)\n}\n'


def test_multi_entity_body_replaces_without_duplicates(module: Path) -> None:
    original = (
        "package x\n\ntype Foo struct {\n\tBar int\n}\n\n"
        "func (f *Foo) GetBar() int {\n\treturn f.Bar\n}\n\n"
        "func (f *Foo) SetBar(b int) {\n\tf.Bar = b\n}\n"
    )
    body = (
        "type Foo struct {\n\tBar int\n\tBaz int\n}\n\n"
        "func (f *Foo) GetBar() int {\n\treturn f.Bar\n}\n\n"
        "func (f *Foo) SetBar(b int) {\n\tf.Bar = b\n}\n"
    )
    result = apply_go(module, original, block("MODIFY", "test.go", body, target="Foo"))
    assert result == "package x\n\n" + body
    assert result.count("type Foo struct") == 1 and result.count("GetBar()") == 1


def test_add_of_an_existing_name_becomes_a_modify(module: Path) -> None:
    original = "package x\n\nfunc A() {}\n\nfunc B() int { return 1 }\n"
    result = apply_go(
        module, original, block("ADD_AFTER", "test.go", "func B() int { return 2 }", target="A")
    )
    assert result == "package x\n\nfunc A() {}\n\nfunc B() int { return 2 }\n"


@pytest.mark.parametrize(
    ("op", "target", "body"),
    [
        ("MODIFY", "Old", "func New() {}"),
        ("WRITE", "", "package x\n\nfunc New() {}\n\n\n"),
        ("ADD_AFTER", "END", "func Z() {}"),
    ],
)
def test_result_ends_with_exactly_one_newline(
    module: Path, op: str, target: str, body: str
) -> None:
    result = apply_go(
        module, "package x\n\nfunc Old() {}\n\n\n", block(op, "test.go", body, target=target)
    )
    assert result.endswith("}\n") and not result.endswith("\n\n")


def test_build_tags_before_the_package_clause_are_kept(module: Path) -> None:
    original = "//go:build linux\n\npackage main\n\nfunc Old() {}\n"
    result = apply_go(module, original, block("MODIFY", "test.go", "func New() {}", target="Old"))
    assert result == "//go:build linux\n\npackage main\n\nfunc New() {}\n"


@pytest.mark.parametrize("target", ["T.M", "*T.M", "(*T).M"])
@pytest.mark.parametrize("receiver", ["t T", "t *T"])
def test_method_targets_match_either_receiver(module: Path, target: str, receiver: str) -> None:
    original = f"package x\n\ntype T struct{{}}\n\nfunc ({receiver}) M() int {{ return 1 }}\n"
    body = f"func ({receiver}) M() int {{ return 2 }}"
    result = apply_go(module, original, block("MODIFY", "test.go", body, target=target))
    assert "return 2" in result and "return 1" not in result


def test_doc_comments_move_with_their_declaration(module: Path) -> None:
    original = "package x\n\n// A does a.\nfunc A() {}\n\n// B does b.\nfunc B() {}\n"
    result = apply_go(module, original, block("DELETE", "test.go", target="A"))
    assert result == "package x\n\n// B does b.\nfunc B() {}\n"


def test_repairing_a_function_that_does_not_parse_keeps_the_ones_after_it(
    module: Path,
) -> None:
    """An unclosed brace makes the parser run the function to the end of the file; the
    repair replaces that function only, not every declaration after it."""
    after = "// B stays.\nfunc B() {}\n\nfunc C() int { return 3 }\n"
    original = "package x\n\nfunc A() {\n\tfor {\n\t\tbreak\n}\n\n" + after
    fixed = "func A() {\n\tfor {\n\t\tbreak\n\t}\n}"
    result = apply_go(module, original, block("MODIFY", "test.go", fixed, target="A"))
    assert result == f"package x\n\n{fixed}\n\n{after}"
    result = apply_go(module, original, block("DELETE", "test.go", target="A"))
    assert result == f"package x\n\n{after}"


def test_specs_inside_groups(module: Path) -> None:
    original = (
        "package x\n\nconst (\n\t// A doc\n\tA = 1 // one\n\tB = 2\n\tC = 3\n)\n\n"
        "var (\n\tv int\n\tw, z = 1, 2\n)\n"
    )
    result = apply_go(
        module,
        original,
        block("DELETE", "test.go", target="A"),
        block("MODIFY", "test.go", "B = 20", target="B"),
        block("MODIFY", "test.go", "30", target="C"),
        block("DELETE", "test.go", target="v"),
    )
    assert result == "package x\n\nconst (\n\tB = 20\n\tC = 30\n)\n\nvar (\n\tw, z = 1, 2\n)\n"


def test_modify_of_a_string_constant_with_a_bare_value(module: Path) -> None:
    original = 'package x\n\nconst Greeting = "hi"\n'
    result = apply_go(
        module, original, block("MODIFY", "test.go", "hello world", target="Greeting")
    )
    assert result == "package x\n\nconst Greeting = `hello world`\n"


def test_begin_goes_after_the_imports(module: Path) -> None:
    original = 'package x\n\nimport "fmt"\n\nfunc Foo() { fmt.Println() }\n'
    result = apply_go(module, original, block("ADD_AFTER", "test.go", "Bar() {}", target="BEGIN"))
    assert result == 'package x\n\nimport "fmt"\n\nfunc Bar() {}\n\nfunc Foo() { fmt.Println() }\n'


def test_the_kind_applies_and_the_flush_formats(module: Path, host: PluginHost) -> None:
    kind = host.registry.block_kinds["change"]
    write_files(module, {"test.go": "package x\n\nfunc A() {}\n"})
    store = kind.apply(
        block("ADD_AFTER", "test.go", "B(){fmt.Println()}", target="A"), FileStore.open(module)
    )
    assert store.read("test.go") == "package x\n\nfunc A() {}\n\nfunc B(){fmt.Println()}\n"
    assert '+import "fmt"' in pending_diff(store)
    store.flush()
    assert (module / "test.go").read_text() == (
        'package x\n\nimport "fmt"\n\nfunc A() {}\n\nfunc B() { fmt.Println() }\n'
    )


def test_results_are_gofmt_clean(module: Path) -> None:
    result = apply_go(
        module,
        "package x\n\nvar n = 0X1F\n\nfunc A() {}\n",
        block("ADD_AFTER", "test.go", "func B(x int)int{\nreturn x*2}", target="A"),
        block("ADD_AFTER", "test.go", 'var Table = map[string]int{"a":1,\n"bb": 2}', target="B"),
    )
    assert gofmt(result) == result


@pytest.mark.parametrize("op", ["MODIFY", "DELETE"])
def test_missing_target_fails_naming_file_and_closest_names(module: Path, op: str) -> None:
    write_files(module, {"pkg/test.go": "package pkg\n\nfunc Handler() {}\n\nfunc Helper() {}\n"})
    store = FileStore.open(module)
    with pytest.raises(ChangeError) as caught:
        apply_change(store, block(op, "pkg/test.go", "func Handlr() {}", target="Handlr"))
    message = str(caught.value)
    assert message.startswith(f"{op} Handlr in pkg/test.go: no declaration named Handlr")
    assert "closest: Handler" in message
    assert (module / "pkg/test.go").read_text().count("Handler") == 1


def test_missing_target_without_close_names_lists_the_declarations(module: Path) -> None:
    write_files(module, {"test.go": "package x\n\nfunc Alpha() {}\n\ntype Beta int\n"})
    with pytest.raises(ChangeError, match="the file declares Alpha, Beta"):
        apply_change(FileStore.open(module), block("DELETE", "test.go", target="Zzz"))


def test_deleting_one_name_of_a_multi_name_spec_fails(module: Path) -> None:
    write_files(module, {"test.go": "package x\n\nvar a, b = 1, 2\n"})
    with pytest.raises(ChangeError, match="declared in one spec with b"):
        apply_change(FileStore.open(module), block("DELETE", "test.go", target="a"))


def test_a_result_that_does_not_parse_fails_and_is_logged(module: Path) -> None:
    write_files(module, {"test.go": 'package x\n\nimport "os"\n\nfunc Foo() {}\n'})
    store = FileStore.open(module)
    with pytest.raises(ChangeError) as caught:
        apply_change(store, block("MODIFY", "test.go", 'import (\n\t"fmt"', target="import"))
    message = str(caught.value)
    assert message.startswith("MODIFY import in test.go: the result is not valid Go (line 3")
    assert caught.value.log is not None
    log = (module / caught.value.log).read_text()
    assert "<modified-file>package x" in log and "<source-file>package x" in log
    with pytest.raises(ChangeError) as caught:
        apply_change(store, block("MODIFY", "test.go", "func Foo() {\n\tx := \n}", target="Foo"))
    assert "the body is not Go declarations (line 2" in str(caught.value)
    assert (module / "test.go").read_text().endswith("func Foo() {}\n")


def test_goimports_rejection_names_the_file(module: Path) -> None:
    # What tree-sitter accepts but Go does not is caught when the round is finished.
    store = FileStore.open(module).write("test.go", "package x\n\nfunc Foo() { 1 + }\n")
    with pytest.raises(ChangeError) as caught:
        finish_changes(store)
    assert str(caught.value).startswith("format in test.go: goimports: test.go:3:")


def test_creating_a_go_file_needs_a_package_clause(module: Path) -> None:
    store = FileStore.open(module)
    with pytest.raises(ChangeError, match="create it with WRITE"):
        apply_change(store, block("ADD_AFTER", "new.go", "func A() {}", target="END"))
    store = apply_change(
        store, block("ADD_AFTER", "new.go", "package x\n\nfunc A() {}", target="END")
    )
    assert store.read("new.go") == "package x\n\nfunc A() {}\n"


def test_a_whole_file_body_brings_its_imports(module: Path) -> None:
    original = 'package x\n\nimport "fmt"\n\nfunc Foo() { fmt.Println() }\n'
    body = 'package x\n\nimport y "gopkg.in/yaml.v3"\n\nfunc Foo() { _, _ = y.Marshal(1) }'
    result = apply_go(module, original, block("MODIFY", "test.go", body, target="Foo"))
    assert result == (
        'package x\n\nimport y "gopkg.in/yaml.v3"\n\nfunc Foo() { _, _ = y.Marshal(1) }\n'
    )


def test_modify_import_keeps_the_cgo_preamble(module: Path) -> None:
    cgo = 'package x\n\n// #include <stdlib.h>\nimport "C"\n\n'
    write_files(module, {"test.go": cgo + 'import "fmt"\n\nvar _ = fmt.Sprint\n'})
    store = apply_change(
        FileStore.open(module), block("MODIFY", "test.go", '"os"', target="import")
    )
    assert store.read("test.go") == cgo + 'import "os"\n\nvar _ = fmt.Sprint\n'


def test_init_and_blank_names_may_repeat(module: Path) -> None:
    original = "package x\n\nfunc init() { a() }\n\nvar _ = 1\n\nfunc F() {}\n"
    result = apply_go(
        module,
        original,
        block("ADD_AFTER", "test.go", "func init() { b() }\n\nvar _ = 2", target="F"),
    )
    assert result.count("func init()") == 2 and result.count("var _ =") == 2
    write_files(module, {"test.go": result})
    with pytest.raises(ChangeError, match="declares init 2 times"):
        apply_change(FileStore.open(module), block("DELETE", "test.go", target="init"))
