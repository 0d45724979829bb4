"""The Go context provider on real modules: tiers, outlines, filters, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_context_go import PROVIDER
from tai_core.context import (
    TIER_CONTEXT,
    TIER_EXTERNAL,
    TIER_FOCUS,
    TIER_HINTS,
    ContextError,
)
from tests.go.conftest import GO_MOD, collect, commit, part_with, text_of, write


def test_applies_inside_a_module_or_workspace(basic: Path, tmp_path: Path) -> None:
    assert PROVIDER.applies(basic) and PROVIDER.applies(basic / "a")
    assert not PROVIDER.applies(tmp_path)
    write(tmp_path / "w", {"go.work": "go 1.22\n"})
    assert PROVIDER.applies(tmp_path / "w")


def test_focus_outline_has_docs_theory_tests_and_file_names(basic: Path) -> None:
    parts = collect(basic)
    focus = part_with(parts, "begin of focus package example.com/m/a\n")
    assert focus.tier == TIER_FOCUS and not focus.read_only
    text = focus.text
    assert text.endswith("``` end of focus package example.com/m/a\n\n")
    assert "func helper() string" in text  # -u: unexported declarations too
    assert "Parse parses s." in text
    assert '"The lexer never allocates."' in text  # the theory constant's full text
    names = text.split("Test functions in this package")[1].split("\n\n")[0]
    assert names.splitlines()[1:] == ["- BenchmarkParse", "- FuzzParse", "- TestParse"]
    for name in ("a/a.go", "a/a_test.go", "a/ext_test.go", "a/notes.txt"):
        assert f"- {name}\n" in text
    # focus sources and non-Go focus files are never sent whole
    assert "begin of focus file" not in text_of(parts)
    assert "notes of a" not in text_of(parts)


def test_standard_library_is_excluded(basic: Path) -> None:
    parts = collect(basic)
    assert not any("package fmt" in p.text or p.path.startswith("/usr") for p in parts)
    assert "example.com/m/cmd/tool" in text_of(parts)  # main packages are documented too


def test_root_markdown_is_its_own_part_and_hint_closes(basic: Path) -> None:
    parts = collect(basic)
    markdown = part_with(parts, "begin of module markdown files")
    assert markdown.tier == TIER_CONTEXT and "- README.md\n" in markdown.text
    assert "# m" not in markdown.text  # listed, fetched with ingest
    assert parts[-1].tier == TIER_HINTS
    assert f"Working directory: {basic}" in parts[-1].text
    assert "relative to this directory" in parts[-1].text


def test_root_markdown_without_root_go_files(tmp_path: Path) -> None:
    root = write(
        tmp_path, {"go.mod": GO_MOD, "DESIGN.md": "x", "_draft.md": "x", "p/p.go": "package p\n"}
    )
    text = part_with(collect(root), "module markdown files").text
    assert "- DESIGN.md" in text and "_draft" not in text


def test_pkg_replaces_the_default_focus(basic: Path) -> None:
    parts = collect(basic, focus=("./b",))
    focus = [p for p in parts if p.tier == TIER_FOCUS]
    assert len(focus) == 1 and "begin of focus package example.com/m/b" in focus[0].text
    assert "focus package example.com/m/a" not in text_of(parts)


def test_context_package_is_shown_as_code(basic: Path) -> None:
    parts = collect(basic, focus=("./b",), context=("./a",))
    part = part_with(parts, "begin of context file a/a.go")
    assert part.tier == TIER_CONTEXT and "func helper()" in part.text


def test_context_is_guaranteed_over_the_budget(basic: Path) -> None:
    huge = "package big\n\n" + "".join(f"var V{i} = {i}\n" for i in range(20000))
    write(basic, {"big/big.go": huge})
    parts = collect(basic, focus=("./b",), context=("./big",))
    assert len(part_with(parts, "begin of context file big/big.go").text) > 4 * 32768


def test_direct_imports_get_documentation(basic: Path) -> None:
    parts = collect(basic, focus=("./a",))
    # b's minimum is its documentation; the 32K budget water-fills it up to all its files
    part = part_with(parts, "begin of context file b/b.go")
    assert part.tier == TIER_CONTEXT and "Join joins." in part.text


def test_match_keeps_only_matching_files(basic: Path) -> None:
    parts = collect(basic, focus=("./a",), match=(r"\.go$",))
    focus = part_with(parts, "begin of focus package example.com/m/a")
    assert "a/notes.txt" not in focus.text and "- a/a.go" in focus.text


def test_exclusions_prefix_basename_and_parent(basic: Path) -> None:
    for pattern in ("b", "b/**", "b.go", "./b/b.go"):
        parts = collect(basic, focus=("./a",), context=("./b",), ignore=(pattern,))
        assert "begin of context file b/b.go" not in text_of(parts), pattern
    # from a sub-directory the file is ../b/b.go; the pattern also meets it without ../
    parts = collect(basic / "cmd", focus=("../a",), context=("../b",), ignore=("b/b.go",))
    assert "b/b.go" not in text_of(parts).split("focus package")[0]
    kept = collect(basic, focus=("./a",), context=("./b",), ignore=("c",))
    assert "begin of context file b/b.go" in text_of(kept)


def test_hidden_packages_are_dropped(basic: Path) -> None:
    for hidden in ("example.com/m/b", "example.com/m/...", "example.com/m/cmd/..."):
        config = {"go": {"hidden": [hidden]}}
        parts = collect(basic, focus=("./a", "./cmd/tool"), context=("./b",), config=config)
        text = text_of(parts)
        if hidden.endswith("b"):
            assert "b/b.go" not in text and "focus package example.com/m/a" in text
        elif hidden.startswith("example.com/m/cmd"):
            assert "package example.com/m/cmd/tool" not in text


def test_git_change_counts_order_focus_packages(tmp_path: Path) -> None:
    root = write(tmp_path, {"go.mod": GO_MOD, "a/a.go": "package a\n", "b/b.go": "package b\n"})
    commit(root, "go.mod", "a/a.go", "b/b.go")
    for round_ in range(2):
        write(root, {"a/a.go": f"package a\n\n// V{round_} …\nconst V{round_} = 1\n"})
        commit(root, "a/a.go")
    focus = [p for p in collect(root) if p.tier == TIER_FOCUS]
    assert ["example.com/m/b" in focus[0].text, "example.com/m/a" in focus[1].text] == [True, True]


def test_modules_outside_the_project_come_first(tmp_path: Path) -> None:
    write(
        tmp_path / "dep",
        {
            "go.mod": "module example.com/dep\n\ngo 1.22\n",
            "d/d.go": "package d\n\n// D is d.\nfunc D() int { return 1 }\n",
        },
    )
    root = write(
        tmp_path / "m",
        {
            "go.mod": GO_MOD
            + "\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ../dep\n",
            "a/a.go": 'package a\n\nimport "example.com/dep/d"\n\nvar X = d.D()\n',
        },
    )
    parts = collect(root)
    external = [p for p in parts if "example.com/dep/d" in p.text or "d/d.go" in p.text]
    assert external and all(p.tier == TIER_EXTERNAL for p in external)


def test_workspace_root_loads_every_module(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "go.work": "go 1.22\n\nuse (\n\t./one\n\t./two\n)\n",
            "one/go.mod": "module example.com/one\n\ngo 1.22\n",
            "one/x/x.go": "package x\n",
            "two/go.mod": "module example.com/two\n\ngo 1.22\n",
            "two/y/y.go": "package y\n",
            "two/NOTES.md": "n",
        },
    )
    text = text_of(collect(root))
    assert "focus package example.com/one/x" in text and "focus package example.com/two/y" in text
    assert "- two/NOTES.md" in text
    inside = text_of(collect(root / "one"))
    assert "focus package example.com/one/x" in inside and "example.com/two" not in inside
    assert "focus package example.com/one/x" in text_of(collect(root / "one" / "x"))


def test_all_src_sends_the_full_focus_source(basic: Path) -> None:
    parts = collect(basic, focus=("./a",), all_src=True)
    text = text_of(parts)
    assert "begin of focus package" not in text
    assert "func helper() string { return" in text and "func notATest()" in text
    assert text.count("notes of a") == 1
    assert all(p.tier == TIER_FOCUS for p in parts if "begin of focus file" in p.text)


def test_read_only_focus_is_marked(basic: Path) -> None:
    writable = lambda path: not str(path).startswith(str(basic / "a"))  # noqa: E731
    parts = collect(basic, focus=("./a", "./b"), is_writable=writable)
    a = part_with(parts, "focus package example.com/m/a")
    b = part_with(parts, "focus package example.com/m/b")
    assert a.read_only and "begin of focus package example.com/m/a (read-only)\n" in a.text
    assert not b.read_only and "(read-only)" not in b.text


def test_errors_are_one_line_context_errors(
    basic: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ContextError, match="nothing"):
        collect(basic, focus=("./nothing/...",))
    with pytest.raises(ContextError, match="matched no packages"):
        collect(basic, focus=("example.com/m/a/...", "example.com/m/zzz/..."))
    bad = write(tmp_path / "bad", {"go.mod": "module\n"})
    with pytest.raises(ContextError) as module:
        collect(bad)
    assert "\n" not in str(module.value)
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    with pytest.raises(ContextError, match="go command was not found"):
        collect(basic)


def test_go_sum_is_never_touched(tmp_path: Path) -> None:
    write(
        tmp_path / "dep", {"go.mod": "module example.com/dep\n\ngo 1.22\n", "d/d.go": "package d\n"}
    )
    root = write(
        tmp_path / "m",
        {
            "go.mod": GO_MOD
            + "\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ../dep\n",
            "go.sum": "example.com/unused v1.0.0 h1:AAAA=\n",
            "a/a.go": 'package a\n\nimport _ "example.com/dep/d"\n',
        },
    )
    before = (root / "go.sum").read_bytes(), (root / "go.mod").read_bytes()
    collect(root, docs=("example.com/dep/d",))
    assert ((root / "go.sum").read_bytes(), (root / "go.mod").read_bytes()) == before


def test_doc_environment_never_adds_mod_mod() -> None:
    from tai_go._gocmd import environments

    listing, doc = environments({"GOFLAGS": "-tags=x"}, workspace=False)
    assert listing["GOFLAGS"] == "-tags=x -mod=mod" and doc["GOFLAGS"] == "-tags=x"
    listing, doc = environments({"GOFLAGS": "-mod=mod -v"}, workspace=True)
    assert listing["GOFLAGS"] == "-v" and doc["GOFLAGS"] == "-v"
    _, doc = environments({"GOFLAGS": "-mod=vendor"}, workspace=False)
    assert doc["GOFLAGS"] == "-mod=vendor"


def test_doc_packages_close_the_project_context(basic: Path) -> None:
    parts = collect(basic, focus=("./b",), docs=("strings",))
    part = part_with(parts, "begin of documentation of package strings")
    assert parts.index(part) == len(parts) - 2  # before the working-directory hint
    with pytest.raises(ContextError):
        collect(basic, focus=("./b",), docs=("example.com/none",))


def test_large_embedded_files_are_left_out(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {
            "go.mod": GO_MOD,
            "e/e.go": 'package e\n\nimport _ "embed"\n\n//go:embed small.txt\nvar S string\n\n'
            "//go:embed big.txt\nvar B string\n",
            "e/small.txt": "small\n",
            "e/big.txt": "x" * (65 * 1024),
        },
    )
    text = part_with(collect(root), "focus package example.com/m/e").text
    assert "- e/small.txt\n" in text and "big.txt" not in text
