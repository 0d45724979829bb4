"""The any-text provider on real trees: ignore rules, links, markers, budget, order."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_context_any import provider
from tai_core.context import TIER_CONTEXT, TIER_HINTS, ContextError, ContextPart, ContextRequest
from tai_core.plugins import PluginHost

from .conftest import write_tree


def collect(root: Path, **fields: object) -> tuple[ContextPart, ...]:
    return provider.collect(ContextRequest(cwd=root, command="any", **fields))  # type: ignore[arg-type]


def file_keys(parts: tuple[ContextPart, ...]) -> list[str]:
    return [part.key for part in parts if part.tier == TIER_CONTEXT]


def test_registered_as_the_any_plugin_and_applies_everywhere(
    host: PluginHost, tmp_path: Path
) -> None:
    assert host.registry.context_providers["any"] is provider
    assert provider.applies(tmp_path)


def test_nested_gitignore_negation_and_info_exclude(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        ".gitignore": "*.log\nbuild/\n",
        ".git/HEAD": "ref: refs/heads/main\n",
        ".git/info/exclude": "secret.txt\n",
        "a.txt": "a\n",
        "x.log": "x\n",
        "secret.txt": "s\n",
        "build/out.txt": "o\n",
        "sub/.gitignore": "!keep.log\n/only-here.txt\n",
        "sub/keep.log": "k\n",
        "sub/only-here.txt": "h\n",
        "sub/deeper/only-here.txt": "d\n",
        "sub/build/y.txt": "y\n",
        "sub/deeper/.gitignore": "!*.txt\n",
        "sub/deeper/secret.txt": "re-included below\n",
    })  # fmt: skip
    assert file_keys(collect(tmp_path)) == [
        ".gitignore", "a.txt", "sub/.gitignore", "sub/deeper/.gitignore",
        "sub/deeper/only-here.txt", "sub/deeper/secret.txt", "sub/keep.log",
    ]  # fmt: skip


def test_gitignore_of_the_repository_above_the_working_directory(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        ".git/HEAD": "", ".gitignore": "project/generated/\n*.tmp\n",
        "project/a.txt": "a\n", "project/b.tmp": "b\n", "project/generated/g.txt": "g\n",
    })  # fmt: skip
    assert file_keys(collect(tmp_path / "project")) == ["a.txt"]


def test_an_ignored_directory_cannot_be_reincluded_from_inside(tmp_path: Path) -> None:
    write_tree(tmp_path, {".gitignore": "out/\n", "out/.gitignore": "!*\n", "out/x.txt": "x"})
    assert file_keys(collect(tmp_path)) == [".gitignore"]


def test_hidden_files_are_shown_and_git_is_not(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        ".env.example": "KEY=\n", ".config/tool.toml": "x = 1\n", ".git/config": "[core]\n",
    })  # fmt: skip
    assert file_keys(collect(tmp_path)) == [".config/tool.toml", ".env.example"]


def test_tais_error_logs_are_not_the_projects(tmp_path: Path) -> None:
    """A failed change leaves its error log in the tree; no later run reads it back as a
    file of the project, unless the user names it."""
    write_tree(tmp_path, {
        "notes.md": "mine\n",
        ".error-log.20261204-000231.xml": "<error-log/>\n",
        "sub/.error-log.20261204-000231-1.xml": "<error-log/>\n",
        "sub/error-log.xml": "the project's own\n",
    })  # fmt: skip
    assert file_keys(collect(tmp_path)) == ["notes.md", "sub/error-log.xml"]
    named = collect(tmp_path, focus=(".error-log.20261204-000231.xml",))
    assert file_keys(named) == [".error-log.20261204-000231.xml"]


def test_markers_binaries_and_the_working_directory_hint(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "doc.md": "# Title\nbody", "logo.png": b"\x89PNG\0\0\0\0", "latin1.txt": b"caf\xe9\n",
    })  # fmt: skip
    parts = collect(tmp_path)
    assert [(part.tier, part.key, part.text) for part in parts] == [
        (
            TIER_CONTEXT,
            "doc.md",
            "``` begin of file doc.md\n# Title\nbody\n``` end of file doc.md\n",
        ),
        (TIER_CONTEXT, "latin1.txt", "``` file latin1.txt (binary, 5 bytes): content omitted\n"),
        (TIER_CONTEXT, "logo.png", "``` file logo.png (binary, 8 bytes): content omitted\n"),
        (
            TIER_HINTS,
            "working-directory",
            f"The working directory is {tmp_path}. File paths above are relative to it; "
            "use paths relative to it in your blocks.\n",
        ),
    ]
    assert parts[0].path == "doc.md"


def test_symlinks_followed_loops_ended_broken_skipped(tmp_path: Path) -> None:
    write_tree(tmp_path, {"real/a.txt": "a\n", "outside/o.txt": "o\n"})
    project = tmp_path / "project"
    write_tree(project, {"sub/b.txt": "b\n"})
    (project / "sub" / "loop").symlink_to("..")
    (project / "again").symlink_to("sub")
    (project / "linked").symlink_to(tmp_path / "real")
    (project / "file-link.txt").symlink_to("sub/b.txt")
    (project / "broken").symlink_to("nowhere")
    (tmp_path / "real" / "self").symlink_to(tmp_path / "real")  # a cycle outside the tree
    parts = collect(project)
    assert file_keys(parts) == ["file-link.txt", "linked/a.txt", "sub/b.txt"]
    assert "``` begin of file linked/a.txt\na\n" in parts[1].text


def test_read_only_files_are_marked(tmp_path: Path) -> None:
    write_tree(tmp_path, {"mine.txt": "m\n", "theirs/t.txt": "t\n"})
    theirs = (tmp_path / "theirs").resolve()
    parts = collect(tmp_path, is_writable=lambda path: not path.is_relative_to(theirs))
    mine, ro = parts[0], parts[1]
    assert (mine.key, mine.read_only) == ("mine.txt", False)
    assert (ro.key, ro.read_only) == ("theirs/t.txt", True)
    assert ro.text.startswith("``` begin of file theirs/t.txt (read-only)\n")
    assert ro.text.endswith("``` end of file theirs/t.txt\n")


def test_focus_patterns_match_and_ignore(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        ".gitignore": "notes.txt\n", "notes.txt": "n\n", "top.md": "t\n",
        "docs/a.md": "a\n", "docs/deep/b.md": "b\n", "docs/c.txt": "c\n",
        "src/main.py": "m\n", "src/util.py": "u\n", "src/data.json": "{}\n",
    })  # fmt: skip
    assert file_keys(collect(tmp_path, focus=("docs/**/*.md",))) == ["docs/a.md", "docs/deep/b.md"]
    assert file_keys(collect(tmp_path, focus=("*.md",))) == ["top.md"]
    assert file_keys(collect(tmp_path, focus=("./docs", "src/main.py"))) == [
        "docs/a.md", "docs/c.txt", "docs/deep/b.md", "src/main.py",
    ]  # fmt: skip
    # Named directly, an ignored file is still shown: it was asked for.
    assert file_keys(collect(tmp_path, focus=("notes.txt",))) == ["notes.txt"]
    assert file_keys(collect(tmp_path, focus=("src",), match=(r"\.py$",))) == [
        "src/main.py", "src/util.py",
    ]  # fmt: skip
    assert file_keys(collect(tmp_path, ignore=("docs/", "*.json", "src/main.py"))) == [
        ".gitignore", "src/util.py", "top.md",
    ]  # fmt: skip


@pytest.mark.parametrize("pattern", ["missing.txt", "nothing/**/*.x", "../*"])
def test_a_focus_pattern_that_names_nothing_is_an_error(tmp_path: Path, pattern: str) -> None:
    write_tree(tmp_path, {"a.txt": "a\n"})
    with pytest.raises(ContextError, match="focus pattern"):
        collect(tmp_path, focus=(pattern,))


def test_a_bad_match_expression_is_an_error(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.txt": "a\n"})
    with pytest.raises(ContextError, match="-match"):
        collect(tmp_path, match=("(",))


def test_the_budget_stops_at_the_first_overflow_and_lists_the_rest(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.txt": "a" * 50, "b.txt": "b" * 50, "c.txt": "c" * 500, "d.txt": "d"})
    one = len(collect(tmp_path, focus=("a.txt",))[0].text)
    parts = collect(tmp_path, config={"max_context_bytes": 2 * one + 10})
    assert file_keys(parts) == ["a.txt", "b.txt"]
    closing = parts[2]
    assert (closing.tier, closing.key) == (TIER_HINTS, "not-included")
    assert closing.text == (
        f"Files not included (the context budget of {2 * one + 10} bytes is spent); "
        "fetch what you need with an ingest block:\n- c.txt\n- d.txt\n"
    )
    assert parts[3].key == "working-directory"
    assert sum(len(part.text) for part in parts[:2]) <= 2 * one + 10


def test_the_models_window_bounds_the_files_and_the_closing_list(tmp_path: Path) -> None:
    write_tree(tmp_path, {f"f{i:04d}.txt": "x" * 400 for i in range(2000)})
    parts = collect(tmp_path, max_tokens=5000)
    assert sum(len(part.text) for part in parts) <= 5000 * 4
    closing = next(part for part in parts if part.key == "not-included")
    assert closing.text.rstrip().endswith("more (list them with an ingest <glob> block)")
    assert 0 < len(file_keys(parts)) < 2000
    assert parts == collect(tmp_path, max_tokens=5000)


def test_no_closing_part_when_everything_fits(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.txt": "a\n"})
    assert [part.key for part in collect(tmp_path)] == ["a.txt", "working-directory"]


def test_files_in_order_and_an_edit_changes_only_its_part(tmp_path: Path) -> None:
    names = [f"d{i % 3}/f{i}.txt" for i in range(12)]
    write_tree(tmp_path, {name: f"{name}\n" for name in reversed(names)})
    first = collect(tmp_path)
    assert file_keys(first) == sorted(names)
    (tmp_path / "d1" / "f4.txt").write_text("changed\n", encoding="utf-8")
    second = collect(tmp_path)
    changed = [old.key for old, new in zip(first, second, strict=True) if old != new]
    assert changed == ["d1/f4.txt"]


@pytest.mark.unprivileged
def test_unreadable_files_are_named(tmp_path: Path) -> None:
    write_tree(tmp_path, {"locked.txt": "x\n"})
    (tmp_path / "locked.txt").chmod(0)
    (part, _) = collect(tmp_path)
    assert part.text == "``` file locked.txt: not readable (Permission denied), content omitted\n"


def test_an_empty_or_all_ignored_project_is_not_an_error(tmp_path: Path) -> None:
    assert [part.key for part in collect(tmp_path)] == ["working-directory"]
    write_tree(tmp_path, {"sub/.gitignore": "*\n", "sub/x.txt": "x\n"})
    assert file_keys(collect(tmp_path, focus=("sub",))) == []


def test_tais_own_directories_inside_the_tree_are_not_walked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run in the home directory: tai's configuration, data and cache directories lie
    inside the tree, and none of them is sent (sessions, memory, caches)."""
    write_tree(tmp_path, {
        "notes.md": "mine\n",
        ".config/tai/extra.toml": "x = 1\n",
        ".local/share/tai/ai-memory.json": '{"Entries": []}\n',
        ".cache/tai/secret-verdicts": "0 0 -\n",
        ".cache/other/kept.txt": "another tool's cache is the user's business\n",
    })  # fmt: skip
    monkeypatch.setenv("TAI_CONFIG_DIR", str(tmp_path / ".config" / "tai"))
    monkeypatch.setenv("TAI_DATA_DIR", str(tmp_path / ".local" / "share" / "tai"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / ".cache"))
    assert file_keys(collect(tmp_path)) == [".cache/other/kept.txt", "notes.md"]
