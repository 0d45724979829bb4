"""ingest blocks run through the real plugin host: files, globs, fetches, refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_core import Block, BlockResult, hookimpl, parse_blocks
from tai_core.plugins import PluginHost

from ..conftest import run_context
from .conftest import write_tree


def ingest(host: PluginHost, cwd: Path, body: str, **config: object) -> BlockResult:
    (block,) = parse_blocks(f"<<紫藤 ingest\n{body}\n紫藤")
    assert isinstance(block, Block)
    kind = host.registry.block_kinds["ingest"]
    assert host.pm.hook.tai_validate_block(block=block, kind=kind) == [[]]
    context = run_context(host, cwd, command="any", config=config)
    return host.pm.hook.tai_run_block(block=block, kind=kind, context=context)


def test_files_and_a_glob_in_the_exact_feedback_shape(host: PluginHost, tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "README.md": "# Read me\n", "docs/a.md": "a", "docs/deep/b.md": "b\n",
        "docs/c.txt": "c\n", ".gitignore": "docs/skip.md\n", "docs/skip.md": "s\n",
    })  # fmt: skip
    result = ingest(
        host,
        tmp_path,
        f'<file>README.md</file>\n<file path="{tmp_path}/docs/a.md"/>\n<glob>docs/**/*.md</glob>',
    )
    assert result == BlockResult(
        kind="ingest",
        ok=True,
        text=(
            '<context type="file" path="README.md">\n# Read me\n</context>\n\n'
            f'<context type="file" path="{tmp_path}/docs/a.md">\na\n</context>\n\n'
            '<context type="glob" pattern="docs/**/*.md">\n'
            "docs/a.md\ndocs/deep/b.md\n</context>\n\n"
        ),
    )


@pytest.mark.parametrize(
    ("request_text", "reason"),
    [
        ("<file>../outside.txt</file>", "../outside.txt leads outside it"),
        ("<file>sub/../../outside.txt</file>", "leads outside it"),
        ("<file>{outside}</file>", "is outside the project"),
        ("<file>escape.txt</file>", "escape.txt is a symbolic link leading outside the project"),
        ("<file>escape-dir/x.txt</file>", "symbolic link leading outside the project"),
        ("<file>missing.txt</file>", "no such file: missing.txt"),
        ("<file>sub</file>", "sub is a directory; list it with <glob>sub/**</glob>"),
        ("<file>image.png</file>", "image.png is binary (6 bytes); content omitted"),
        ("<file>latin1.txt</file>", "latin1.txt is not UTF-8 text (5 bytes); content omitted"),
        ("<file></file>", "no path given"),
        ("<glob>../*.txt</glob>", "must stay inside"),
        ("<glob>nothing/**</glob>", "'nothing/**' matches no file"),
    ],
)
def test_refusals_name_the_reason(
    host: PluginHost, tmp_path: Path, request_text: str, reason: str
) -> None:
    outside = write_tree(tmp_path / "elsewhere", {"outside.txt": "secret\n", "x.txt": "x\n"})
    project = write_tree(tmp_path / "project", {"sub/in.txt": "i\n", "image.png": b"\x89PNG\0\0",
                                                 "latin1.txt": b"caf\xe9\n"})  # fmt: skip
    (project / "escape.txt").symlink_to(outside / "outside.txt")
    (project / "escape-dir").symlink_to(outside)
    body = request_text.format(outside=outside / "outside.txt")
    result = ingest(host, project, body)
    assert not result.ok
    assert "secret" not in result.text
    assert result.text.startswith('<context type="')
    assert f"\n[error: {reason}" in result.text or reason in result.text
    assert result.text.endswith("]\n</context>\n\n")


def test_links_inside_the_project_and_normalised_paths_are_read(
    host: PluginHost, tmp_path: Path
) -> None:
    write_tree(tmp_path, {"sub/in.txt": "inside\n"})
    (tmp_path / "alias.txt").symlink_to("sub/in.txt")
    result = ingest(host, tmp_path, "<file>alias.txt</file><file>sub/../sub/./in.txt</file>")
    assert result.ok
    assert result.text.count("\ninside\n</context>") == 2


def test_a_glob_is_capped_with_a_note(host: PluginHost, tmp_path: Path) -> None:
    write_tree(tmp_path, {f"many/f{index:03}.txt": "" for index in range(503)})
    result = ingest(host, tmp_path, "<glob>many/*.txt</glob>")
    lines = result.text.splitlines()
    assert lines[1:3] == ["many/f000.txt", "many/f001.txt"]
    assert lines[500] == "many/f499.txt"
    assert lines[501] == "[… 3 more not listed; narrow the pattern]"


def test_a_large_file_is_cut_with_a_note(host: PluginHost, tmp_path: Path) -> None:
    write_tree(tmp_path, {"big.txt": "é" * 100})
    result = ingest(host, tmp_path, "<file>big.txt</file>", ingest_max_bytes=51)
    assert result.text == (
        '<context type="file" path="big.txt">\n'
        + "é" * 25
        + "\n[cut: only the first 51 bytes are included]\n</context>\n\n"
    )


class ReadPolicy:
    __name__ = "read-policy"

    @hookimpl
    def tai_path_policy(self, path: str, operation: str) -> tuple[bool, str] | None:
        if operation == "read" and path.startswith("private/"):
            return False, "private files are not read"
        return None


def test_the_path_policy_may_refuse_a_read(host: PluginHost, tmp_path: Path) -> None:
    write_tree(tmp_path, {"private/key.txt": "k\n", "public.txt": "p\n"})
    host.register(ReadPolicy(), "read-policy")
    try:
        result = ingest(host, tmp_path, "<file>private/key.txt</file><file>public.txt</file>")
    finally:
        host.unregister("read-policy")
    assert not result.ok
    assert "[error: private/key.txt: private files are not read]" in result.text
    assert '<context type="file" path="public.txt">\np\n</context>' in result.text


@pytest.mark.parametrize(
    "body",
    ["<file>a.txt</file><file>b</fil>", "<file>a.txt</file><glob>*.txt"],
    ids=["mismatched", "unclosed"],
)
def test_malformed_xml_is_one_parse_error(host: PluginHost, tmp_path: Path, body: str) -> None:
    result = ingest(host, tmp_path, body)
    assert not result.ok
    assert result.text.startswith("[ingest parse error: ")
    assert result.text.endswith("]")
    assert "<context" not in result.text


def test_an_unknown_request_is_an_error_next_to_the_others(
    host: PluginHost, tmp_path: Path
) -> None:
    write_tree(tmp_path, {"a.txt": "a\n"})
    result = ingest(host, tmp_path, "<file>a.txt</file><grep>x</grep>")
    assert not result.ok
    assert result.text.endswith(
        '<context type="grep">\n[error: unknown request <grep>; use <file>, <glob> or <fetch>]'
        "\n</context>\n\n"
    )


def test_a_project_reached_through_a_link_accepts_its_real_path(
    host: PluginHost, tmp_path: Path
) -> None:
    real = write_tree(tmp_path / "real", {"a.txt": "a\n"})
    (tmp_path / "alias").symlink_to(real)
    result = ingest(host, tmp_path / "alias", f"<file>{real}/a.txt</file><file>a.txt</file>")
    assert result.ok
    assert result.text.count("\na\n</context>") == 2
