"""The body of a Go change block, understood as declarations.

Models write bodies in several shapes: a whole file with its package clause, complete
declarations, or declarations without their keyword (``newFunc() {}``, ``Timeout = 5``,
``Config struct{…}``, a spec copied out of a ``const (…)`` group with its closing
parenthesis). A body is tried as a file, then inside a synthetic ``package p`` with no
keyword and with each of ``const``, ``var``, ``type`` and ``func`` prepended (the kind of
the target declaration first), then again without a trailing ``)``; the first reading that
is valid Go wins, and the keyword it needed is kept so that the inserted text is Go.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from tai_changes._go_syntax import (
    declarations,
    first_problem,
    import_specs,
    parse,
    spec_nodes,
)

if TYPE_CHECKING:
    from tree_sitter import Tree

_PREFIX = b"package p\n"
KEYWORDS = ("const", "var", "type", "func")


@attrs.frozen
class Entity:
    """One declaration of a body: its kind, names, text (keyword included) and, when it
    declares a single ``const``/``var``/``type`` spec, that spec without the keyword."""

    kind: str
    names: tuple[str, ...]
    text: bytes
    spec: bytes | None = None


@attrs.frozen
class Body:
    """A body read as Go: the text to insert (no package clause, no imports), its
    declarations, and the package name and import specs when it was a whole file."""

    text: bytes
    entities: tuple[Entity, ...]
    package: str | None = None
    imports: tuple[bytes, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """Every name the body declares, in order."""
        return tuple(name for entity in self.entities for name in entity.names)


def _read(tree: Tree, source: bytes, offset: int) -> Body:
    """The :class:`Body` of a valid, parsed ``source`` whose body starts at ``offset``."""
    package = None
    imports: list[bytes] = []
    header_end = offset
    entities: list[Entity] = []
    for decl in declarations(tree, source):
        node = decl.node
        if node is None:
            continue
        if decl.kind == "package":
            if not offset:  # a package clause of the body's own, not the synthetic one
                package = (node.named_children[-1].text or b"").decode()
                header_end = max(header_end, decl.end)
            continue
        if decl.kind == "import":
            imports.extend(spec.text or b"" for spec in import_specs(node))
            header_end = max(header_end, decl.end)
            continue
        text = source[decl.start : decl.end]
        spec = None
        if decl.kind in ("const", "var", "type") and len(spec_nodes(node)) == 1:
            if decl.grouped:
                spec = source[decl.specs[0].start : decl.specs[0].end]
            else:
                keyword = node.children[0]
                spec = source[decl.start : keyword.start_byte] + source[
                    keyword.end_byte : decl.end
                ].lstrip(b" \t")
            spec = spec.strip(b"\n")
        entities.append(Entity(decl.kind, decl.names, text.strip(b"\n"), spec))
    start = header_end if package is not None else offset
    return Body(source[start:].strip(), tuple(entities), package, tuple(imports))


def read_body(body: str, prefer: str | None = None) -> Body | None:
    """``body`` read as Go declarations, or ``None`` when no reading is valid.

    :param prefer: the kind of the target declaration (``func``, ``method``, ``type``,
        ``const``, ``var``), whose keyword is tried first for a keywordless body.
    """
    raw = body.strip().encode("utf-8", "surrogateescape") + b"\n"
    tree = parse(raw)
    if any(n.type == "package_clause" for n in tree.root_node.children):
        return _read(tree, raw, 0) if first_problem(tree, raw) is None else None
    keyword = {"method": "func"}.get(prefer or "", prefer)
    order = [b""] + [f"{kw} ".encode() for kw in sorted(KEYWORDS, key=lambda kw: kw != keyword)]
    variants = [raw]
    if raw.endswith(b")\n"):
        variants.append(raw[:-2].rstrip() + b"\n")
    for variant in variants:
        for prefix in order:
            source = _PREFIX + prefix + variant
            tree = parse(source)
            if first_problem(tree, source) is None:
                return _read(tree, source, len(_PREFIX))
    return None


def body_problem(body: str) -> str:
    """Why ``body`` is not Go declarations, in the body's own line numbers."""
    source = _PREFIX + body.strip().encode("utf-8", "surrogateescape") + b"\n"
    problem = first_problem(parse(source), source) or "not declarations"
    if problem.startswith("line "):
        number, _, rest = problem[5:].partition(":")
        if number.isdigit():
            return f"line {max(int(number) - 1, 1)}:{rest}"
    return problem
