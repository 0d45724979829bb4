"""The text of the parts: file and package blocks, the focus package outline.

The focus outline is ``go doc -all -cmd -u`` (the whole declaration surface with its doc
comments), then the full text of any theory constant (``THEORY…``, ``TheoryOf…``) the
documentation does not print, the names of the package's test functions and the names of
its files — Go files for ``go-src``, the others for ``ingest``.

Both lists come from parsed declarations, never from matching text. A test is what
``go test`` runs: a top-level function (not a method) named ``Test``, ``Benchmark`` or
``Fuzz`` followed by nothing or by a character that is not a lower-case letter, without
type parameters or results, taking one ``*T``, ``*B`` or ``*F`` (``TestMain(*M)`` is the
test binary's main, not a test); an example is such a name with ``Example`` that takes and
returns nothing (listed with or without an output comment: either way it is source the
model may fetch). A theory constant counts as printed when a ``const``/``var`` declaration
of the documentation declares its name: ``go doc`` re-aligns values and drops comments
inside them, so comparing texts repeated constants it had printed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

from tai_staging import unit_block

if TYPE_CHECKING:
    from tree_sitter import Node

    from tai_changes._go_syntax import Decl

#: Top-level test function prefixes listed in a focus outline, and the type (``*T``…) the
#: one parameter of each has (examples take none).
TEST_PREFIXES = {"Test": "T", "Benchmark": "B", "Fuzz": "F", "Example": None}
_THEORY = re.compile(r"(?i)theory")
_THEORY_BYTES = re.compile(rb"(?i)theory")
#: Where ``go doc`` prints a declaration: at the start of a line.
_DOC_DECL = re.compile(rb"^(?:const|var|func|type)\b", re.MULTILINE)
#: How many later declarations a printed ``const``/``var`` may seem to run into (a raw
#: string holding lines that look like declarations) before it counts as not printed.
_DOC_REACH = 16


def problems_block(problems: Mapping[str, str]) -> str:
    """The packages that failed to load, one line each: package, then ``go list``'s error."""
    lines = "".join(f"- {path}: {problems[path]}\n" for path in sorted(problems))
    body = (
        "These packages could not be loaded completely; the rest of the context is complete. "
        f"Each with the error go list reports:\n{lines}"
    )
    return unit_block("packages that failed to load", f"({len(problems)})", body)


@lru_cache(maxsize=4096)
def _declarations(data: bytes) -> list[Decl]:
    """The declarations of a Go file (cached by content: one collection renders a focus
    package at several levels, and goal loops render unchanged files again)."""
    from tai_changes._go_syntax import declarations, parse

    return declarations(parse(data), data)


def _params(node: Node | None) -> list[Node]:
    if node is None:
        return []
    return [child for child in node.named_children if child.type != "comment"]


def _takes(decl: Decl, kind: str | None) -> bool:
    """Whether the function ``decl`` has the shape of a test taking ``*kind`` (nothing
    when ``kind`` is ``None``): no type parameters, no results."""
    node = decl.node
    if node is None or node.child_by_field_name("type_parameters") is not None:
        return False
    result = node.child_by_field_name("result")
    if result is not None and (result.type != "parameter_list" or _params(result)):
        return False
    params = _params(node.child_by_field_name("parameters"))
    if kind is None:
        return not params
    if len(params) != 1 or params[0].type != "parameter_declaration":
        return False
    if len(params[0].children_by_field_name("name")) > 1:
        return False
    pointer = params[0].child_by_field_name("type")
    target = pointer.named_children[0] if pointer and pointer.type == "pointer_type" else None
    if target is not None and target.type == "qualified_type":
        target = target.child_by_field_name("name")
    return target is not None and target.type == "type_identifier" and target.text == kind.encode()


def is_test(decl: Decl) -> bool:
    """Whether ``decl`` is a test, benchmark, fuzz test or example (see the module)."""
    if decl.kind != "func" or len(decl.names) != 1:
        return False
    name = decl.names[0]
    for prefix, kind in TEST_PREFIXES.items():
        rest = name[len(prefix) :]
        if name.startswith(prefix) and not rest[:1].islower():
            return _takes(decl, kind)
    return False


def test_names(sources: Iterable[bytes]) -> list[str]:
    """The tests, benchmarks, fuzz tests and examples of test files, sorted, unique."""
    names = {decl.names[0] for data in sources for decl in _declarations(data) if is_test(decl)}
    return sorted(names)


def code_of(text: str) -> str:
    """``text`` without the comment lines it starts with (a declaration's doc comment)."""
    lines = text.splitlines(keepends=True)
    while lines and lines[0].lstrip().startswith("//"):
        lines.pop(0)
    return "".join(lines)


def printed_names(doc: str) -> set[str]:
    """The names the ``const`` and ``var`` declarations printed in ``doc`` declare.

    Each declaration is parsed from its first line up to the next line where one starts,
    further when that cuts it short (a raw string holding such a line)."""
    from tai_changes._go_syntax import DECL_KINDS, decl_names, parse_range

    data = doc.encode("utf-8", "surrogateescape")
    starts = [line.start() for line in _DOC_DECL.finditer(data)]
    names: set[str] = set()
    for index, start in enumerate(starts):
        if not data.startswith((b"const", b"var"), start):
            continue
        for end in [*starts[index + 1 :], len(data)][:_DOC_REACH]:
            tree = parse_range(data, start, end)
            node = tree.root_node.named_children[0] if tree.root_node.named_children else None
            if node is not None and not node.has_error:
                if DECL_KINDS.get(node.type) in ("const", "var"):
                    names.update(decl_names(node))
                break
    return names


def theory_texts(sources: Iterable[bytes], doc: str) -> list[str]:
    """The source of each theory constant or variable ``doc`` does not print."""
    printed: set[str] | None = None
    missing = []
    for data in sources:
        if not _THEORY_BYTES.search(data):  # no name in it can start with "theory"
            continue
        for decl in _declarations(data):
            if decl.kind not in ("const", "var"):
                continue
            ranges = [(s.names, s.start, s.end) for s in decl.specs] or [
                (decl.names, decl.start, decl.end)
            ]
            for names, start, end in ranges:
                theories = {name for name in names if _THEORY.match(name)}
                if not theories:
                    continue
                if printed is None:
                    printed = printed_names(doc)
                if not theories <= printed:
                    missing.append(data[start:end].decode("utf-8", "replace").rstrip("\n"))
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
    return unit_block("focus package", path, body, read_only)
