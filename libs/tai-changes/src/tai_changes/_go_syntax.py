"""Go source as a list of top-level declarations, read with tree-sitter-go.

Everything the Go operations need from the source is here: the package clause, the import
declarations and every function, method, type, constant and variable, each with the byte
range it occupies *as whole lines* — its doc comment above it and a comment trailing its
last line included — and, for grouped ``const``/``var``/``type`` declarations, the same for
each spec. Offsets are in bytes of the UTF-8 source, as tree-sitter gives them.

A source is *valid* when tree-sitter finds no error and no missing token, it has a package
clause, and every top-level node is a declaration or a comment: the grammar accepts
statements at the top level for editors' sake, Go does not.

*A file that does not parse* still has its declarations. tree-sitter recovers from an
unclosed brace by running the open function to the end of the file, so every later
declaration becomes a statement of its body: the outline lost the tests after a broken
one, and a MODIFY that repaired the broken function replaced everything after it too.
gofmt puts every top-level declaration at column 0 and indents everything inside one, so
a line that starts with a declaration keyword inside a node holding a syntax error (and
not inside a string or a comment there) starts a new declaration: the source is parsed
again in pieces cut at those lines (:func:`declarations`). Where a source parses, nothing
changes; whether it is valid is still decided on the whole file.
"""

from __future__ import annotations

import itertools
import re
import threading
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

#: Top-level node types of a valid Go file, and the declaration kind of each.
DECL_KINDS: dict[str, str] = {
    "package_clause": "package",
    "import_declaration": "import",
    "function_declaration": "func",
    "method_declaration": "method",
    "type_declaration": "type",
    "const_declaration": "const",
    "var_declaration": "var",
}
_SPEC_TYPES = frozenset({"const_spec", "var_spec", "type_spec", "type_alias"})
#: A line that starts a top-level declaration in gofmt's layout.
_DECL_LINE = re.compile(rb"^(?:func|type|const|var|import)\b", re.MULTILINE)
#: Nodes whose text is not code: a keyword inside one starts nothing.
_OPAQUE = frozenset({"comment", "raw_string_literal", "interpreted_string_literal", "rune_literal"})
_local = threading.local()


def _parser() -> Parser:
    """A parser of this thread (tree-sitter parsers are not shared between threads)."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        import tree_sitter_go
        from tree_sitter import Language, Parser

        parser = Parser(Language(tree_sitter_go.language()))
        _local.parser = parser
    return parser


def parse(source: bytes) -> Tree:
    """The syntax tree of ``source``."""
    return _parser().parse(source)


def _point(source: bytes, offset: int) -> tuple[int, int]:
    row = source.count(b"\n", 0, offset)
    return row, offset - (source.rfind(b"\n", 0, offset) + 1)


def parse_range(source: bytes, start: int, end: int) -> Tree:
    """The syntax tree of ``source[start:end]`` alone, its nodes at their offsets and rows
    in ``source``."""
    from tree_sitter import Parser, Point, Range

    bounds = Range(Point(*_point(source, start)), Point(*_point(source, end)), start, end)
    parser = Parser(_parser().language, included_ranges=[bounds])
    return parser.parse(source)


@attrs.frozen
class Spec:
    """One spec of a grouped declaration: its names and its whole-line range."""

    names: tuple[str, ...]
    start: int
    end: int


@attrs.frozen
class Decl:
    """A top-level declaration: ``kind`` (see :data:`DECL_KINDS`), the names it declares
    (``T.M`` for a method of ``T``), its whole-line range and, when grouped, its specs."""

    kind: str
    names: tuple[str, ...]
    start: int
    end: int
    specs: tuple[Spec, ...] = ()
    grouped: bool = False
    node: Node | None = attrs.field(default=None, eq=False, repr=False)


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "surrogateescape")


def _receiver_type(node: Node) -> str:
    """The base type name of a method's receiver: ``T`` for ``*T``, ``T[K]``, ``(*T)``."""
    receiver = node.child_by_field_name("receiver")
    current = None
    if receiver is not None:
        params = [child for child in receiver.named_children if child.type != "comment"]
        current = params[0].child_by_field_name("type") if params else None
    while current is not None and current.type != "type_identifier":
        if current.type == "generic_type":
            current = current.child_by_field_name("type")
        elif current.named_children:
            current = current.named_children[0]
        else:
            current = None
    return _text(current) if current is not None else ""


def _spec_names(spec: Node) -> tuple[str, ...]:
    return tuple(_text(name) for name in spec.children_by_field_name("name"))


def decl_names(node: Node) -> tuple[str, ...]:
    """The names a top-level declaration node declares (methods as ``T.M``)."""
    kind = DECL_KINDS.get(node.type)
    if kind == "func":
        name = node.child_by_field_name("name")
        return (_text(name),) if name is not None else ()
    if kind == "method":
        name = node.child_by_field_name("name")
        return (f"{_receiver_type(node)}.{_text(name)}",) if name is not None else ()
    if kind in ("type", "const", "var"):
        return tuple(name for spec in spec_nodes(node) for name in _spec_names(spec))
    return ()


def spec_nodes(node: Node) -> list[Node]:
    """The specs of a ``const``/``var``/``type`` declaration, grouped or not."""
    found = []
    for child in node.named_children:
        if child.type in _SPEC_TYPES:
            found.append(child)
        elif child.type.endswith("_spec_list"):
            found.extend(c for c in child.named_children if c.type in _SPEC_TYPES)
    return found


def _is_grouped(node: Node) -> bool:
    return any(child.type == "(" or child.type.endswith("_spec_list") for child in node.children)


def _line_start(source: bytes, offset: int) -> int:
    """``offset`` moved back to its line's start when only blanks precede it there."""
    start = source.rfind(b"\n", 0, offset) + 1
    return start if not source[start:offset].strip() else offset


def _line_end(source: bytes, offset: int) -> int:
    """``offset`` moved past its line's newline when only blanks follow it there."""
    end = source.find(b"\n", offset)
    end = len(source) if end < 0 else end + 1
    return end if not source[offset:end].strip() else offset


def _ranges(
    siblings: list[Node], wanted: frozenset[str], source: bytes
) -> dict[int, tuple[int, int]]:
    """Whole-line ranges of the ``wanted`` nodes among ``siblings``, by node id.

    A node's range grows upwards over the comments right above it (its doc comment: no
    blank line between, and not trailing an earlier node's line) and downwards over a
    comment on its own last line.
    """
    ranges: dict[int, tuple[int, int]] = {}
    for index, node in enumerate(siblings):
        if node.type not in wanted:
            continue
        first = node
        cursor = index - 1
        while cursor >= 0:
            above = siblings[cursor]
            if above.type != "comment" or above.end_point.row + 1 != first.start_point.row:
                break
            if cursor > 0 and siblings[cursor - 1].end_point.row == above.start_point.row:
                break
            first = above
            cursor -= 1
        end, row = _code_end(source, node)
        after = siblings[index + 1] if index + 1 < len(siblings) else None
        if after is not None and after.type == "comment" and after.start_point.row == row:
            end = after.end_byte
        ranges[node.id] = (_line_start(source, first.start_byte), _line_end(source, end))
    return ranges


def _code_end(source: bytes, node: Node) -> tuple[int, int]:
    """Where ``node`` ends and the row of its last line: a node closed by a missing token
    (a source that does not parse) ends before the blank lines that follow it."""
    end = node.start_byte + len(source[node.start_byte : node.end_byte].rstrip())
    return end, node.end_point.row - source.count(b"\n", end, node.end_byte)


def _opaque(node: Node | None) -> bool:
    while node is not None:
        if node.type in _OPAQUE:
            return True
        node = node.parent
    return False


def _above_comments(source: bytes, offset: int, floor: int) -> int:
    """The start of the ``//`` lines right above the line at ``offset`` (its doc
    comment), not reaching ``floor``."""
    while True:
        above = source.rfind(b"\n", 0, offset - 1) + 1
        if offset <= 0 or above <= floor or not source.startswith(b"//", above):
            return offset
        offset = above


def _restarts(tree: Tree, source: bytes, start: int, end: int) -> list[int]:
    """Where the declarations start (with their doc comments) whose first lines are
    inside top-level nodes with a syntax error."""
    found = []
    for node in tree.root_node.children:
        if not node.has_error:
            continue
        for line in _DECL_LINE.finditer(source, max(node.start_byte + 1, start), end):
            if line.start() < node.end_byte:
                inner = tree.root_node.descendant_for_byte_range(line.start(), line.end())
                if not _opaque(inner):
                    found.append(_above_comments(source, line.start(), start))
    return sorted(set(found))


def _top_nodes(tree: Tree, source: bytes, start: int, end: int) -> list[Node]:
    """The top-level nodes of ``source[start:end]`` (parsed as ``tree``), the pieces of
    a source that does not parse parsed apart (see the module docstring)."""
    cuts = _restarts(tree, source, start, end) if tree.root_node.has_error else []
    if not cuts:
        return list(tree.root_node.children)
    bounds = [start, *cuts, end]
    return [
        node
        for low, high in itertools.pairwise(bounds)
        for node in _top_nodes(parse_range(source, low, high), source, low, high)
    ]


def declarations(tree: Tree, source: bytes) -> list[Decl]:
    """The top-level declarations of a parsed ``source``, in order."""
    top = _top_nodes(tree, source, 0, len(source))
    ranges = _ranges(top, frozenset(DECL_KINDS), source)
    decls = []
    for node in top:
        if node.type not in DECL_KINDS:
            continue
        start, end = ranges[node.id]
        kind = DECL_KINDS[node.type]
        specs: tuple[Spec, ...] = ()
        grouped = kind in ("type", "const", "var") and _is_grouped(node)
        if grouped:
            specs = _group_specs(node, source)
        decls.append(Decl(kind, decl_names(node), start, end, specs, grouped, node))
    return decls


def _group_specs(node: Node, source: bytes) -> tuple[Spec, ...]:
    holder = next((c for c in node.named_children if c.type.endswith("_spec_list")), node)
    members = [c for c in holder.children if c.is_named]
    ranges = _ranges(members, _SPEC_TYPES, source)
    return tuple(
        Spec(_spec_names(member), *ranges[member.id])
        for member in members
        if member.type in _SPEC_TYPES
    )


def header_end(decls: list[Decl]) -> int:
    """Where declarations may start: after the package clause and the imports."""
    return max((d.end for d in decls if d.kind in ("package", "import")), default=0)


def first_problem(tree: Tree, source: bytes) -> str | None:
    """Why ``source`` is not a valid Go file (``line N: …``), or ``None`` when it is."""
    root = tree.root_node
    if root.has_error:
        node = _first_error(root)
        if node is not None:
            line = node.start_point.row + 1
            if node.is_missing:
                return f"line {line}: missing {node.type!r}"
            snippet = source[node.start_byte : node.end_byte].decode("utf-8", "replace")
            snippet = " ".join(snippet.split())[:60]
            return f"line {line}: syntax error at {snippet!r}" if snippet else f"line {line}"
        return "syntax error"
    if package_clause(tree) is None:
        return "no package clause"
    for node in root.named_children:
        if node.type not in DECL_KINDS and node.type != "comment":
            return (
                f"line {node.start_point.row + 1}: a {node.type.replace('_', ' ')} outside "
                "any function (only declarations may appear at the top level)"
            )
    return None


def _first_error(node: Node) -> Node | None:
    """The first error or missing node in document order."""
    if node.type == "ERROR" or node.is_missing:
        return node
    for child in node.children:
        if child.has_error or child.is_missing:
            found = _first_error(child)
            if found is not None:
                return found
    return None


def package_clause(tree: Tree) -> Node | None:
    """The package clause node, if the source has one."""
    return next((n for n in tree.root_node.children if n.type == "package_clause"), None)


def import_specs(node: Node) -> list[Node]:
    """The import specs of an import declaration, grouped or not."""
    found = [child for child in node.named_children if child.type == "import_spec"]
    for child in node.named_children:
        if child.type == "import_spec_list":
            found.extend(c for c in child.named_children if c.type == "import_spec")
    return found
