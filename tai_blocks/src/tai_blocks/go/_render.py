"""The text of the parts: file and package blocks, the focus package outline.

The focus outline is ``go doc -all -cmd -u`` (the whole declaration surface with its doc
comments), then the full text of any theory constant (``THEORY…``, ``TheoryOf…``) the
documentation does not already show verbatim, the names of the package's test functions
and the names of its files — Go files for ``go-src``, the others for ``ingest``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

#: Top-level test function prefixes listed in a focus outline.
TEST_PREFIXES = ("Test", "Benchmark", "Fuzz", "Example")
_THEORY = re.compile(r"(?i)theory")


def _mark(read_only: bool) -> str:
    return " (read-only)" if read_only else ""


def file_block(role: str, display: str, data: bytes, read_only: bool) -> str:
    """A whole file: ``role`` is ``focus file`` or ``context file``."""
    text = data.decode("utf-8", "replace")
    return (
        f"``` begin of {role} {display}{_mark(read_only)}\n{text}\n``` end of {role} {display}\n\n"
    )


def package_block(role: str, path: str, doc: str, read_only: bool = False) -> str:
    """A package's documentation: ``role`` is ``context package``, ``source package``…"""
    if doc and not doc.endswith("\n"):
        doc += "\n"
    return f"``` begin of {role} {path}{_mark(read_only)}\n{doc}``` end of {role} {path}\n\n"


def problems_block(problems: Mapping[str, str]) -> str:
    """The packages that failed to load, one line each: package, then ``go list``'s error."""
    lines = "".join(f"- {path}: {problems[path]}\n" for path in sorted(problems))
    body = (
        "These packages could not be loaded completely; the rest of the context is complete. "
        f"Each with the error go list reports:\n{lines}"
    )
    return package_block("packages that failed to load", f"({len(problems)})", body)


@lru_cache(maxsize=4096)
def _declarations(data: bytes) -> list:
    """The declarations of a Go file (cached by content: one collection renders a focus
    package at several levels, and goal loops render unchanged files again)."""
    from tai_blocks.changes._go_syntax import declarations, parse

    return declarations(parse(data), data)


def test_names(sources: Iterable[bytes]) -> list[str]:
    """Top-level Test/Benchmark/Fuzz/Example functions of test files, sorted, unique."""
    names = {
        name
        for data in sources
        for decl in _declarations(data)
        if decl.kind == "func"
        for name in decl.names
        if name.startswith(TEST_PREFIXES)
    }
    return sorted(names)


def code_of(text: str) -> str:
    """``text`` without the comment lines it starts with (a declaration's doc comment)."""
    lines = text.splitlines(keepends=True)
    while lines and lines[0].lstrip().startswith("//"):
        lines.pop(0)
    return "".join(lines)


def theory_texts(sources: Iterable[bytes], doc: str) -> list[str]:
    """The source of each theory constant or variable whose text ``doc`` lacks."""
    shown = "".join(doc.split())
    missing = []
    for data in sources:
        for decl in _declarations(data):
            if decl.kind not in ("const", "var"):
                continue
            ranges = [(s.names, s.start, s.end) for s in decl.specs] or [
                (decl.names, decl.start, decl.end)
            ]
            for names, start, end in ranges:
                if any(_THEORY.match(name) for name in names):
                    text = data[start:end].decode("utf-8", "replace")
                    if "".join(code_of(text).split()) not in shown:
                        missing.append(text.rstrip("\n"))
    return missing


def focus_outline(
    path: str,
    *,
    doc: str | None,
    error: str,
    sources: Mapping[str, bytes],
    tests: Mapping[str, bytes],
    file_names: Iterable[str],
    read_only: bool,
    note: str = "",
) -> str:
    """The focus block of package ``path``: ``note`` (why it is shown reduced), its
    documentation (or the failure note), the theory constants it lacks, its test function
    names and its file names."""
    body = note + (
        doc
        if doc is not None
        else f"(go doc failed: {error}; fetch declarations with go-src blocks)\n"
    )
    if body and not body.endswith("\n"):
        body += "\n"
    theories = theory_texts(sources.values(), body)
    if theories:
        body += "\nFull text of the theory constants:\n\n" + "\n\n".join(theories) + "\n"
    names = test_names(tests.values())
    if names:
        body += (
            "\nTest functions in this package (fetch a test's source with a go-src block "
            "naming the function):\n" + "".join(f"- {name}\n" for name in names)
        )
    body += (
        "\nFiles of this package (fetch Go declarations with go-src blocks, other files "
        "with ingest blocks):\n" + "".join(f"- {name}\n" for name in file_names)
    )
    return package_block("focus package", path, body, read_only)
