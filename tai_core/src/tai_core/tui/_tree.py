"""The Tree tab: the session tree as foldable lines, drawn a screenful at a time.

:class:`TreeLayout` flattens the tree into rows (pre-order, the children of folded nodes
left out) once per change of the tree or of a fold; :class:`TreeControl` hands
prompt_toolkit one line per row on request, and prompt_toolkit asks only for the rows the
window shows — so the cost of a redraw is the screen's height, not the tree's size. The
selected row is the cursor; Enter, Space or a click on a row's glyph folds and unfolds
it; the glyph under the mouse is drawn reversed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
from prompt_toolkit.data_structures import Point
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout.controls import UIContent, UIControl
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType

from tai_core.tree import Node, NodeKind, SessionTree, node_status, node_title

#: Each level of depth indents by this much.
INDENT = "  "
FOLDED, OPEN, LEAF = "▸ ", "▾ ", "  "
#: The kinds of node whose body's first line follows its name.
TITLED = frozenset({NodeKind.USER_INPUT, NodeKind.RESPONSE, NodeKind.SUMMARY, NodeKind.PLAN,
                    NodeKind.ERROR, NodeKind.GOAL, NodeKind.EVENT, NodeKind.BLOCK})  # fmt: skip


@attrs.frozen
class Row:
    """One line of the tab: a node at a depth, and whether it has children to fold."""

    depth: int
    node: Node
    parent: bool
    folded: bool


@attrs.define
class TreeLayout:
    """The rows of a tree with the user's folds, and the selected row."""

    tree: SessionTree | None = None
    folded: set[str] = attrs.Factory(set)
    rows: list[Row] = attrs.Factory(list)
    selected: int = 0
    #: The row whose glyph the mouse is over, or ``None``.
    hovered: int | None = None

    def lay_out(self, tree: SessionTree | None) -> None:
        """Flatten ``tree`` (the same one again after a fold)."""
        self.tree = tree
        rows: list[Row] = []
        if tree is not None:
            stack = [(0, child) for child in reversed(tree.root.children)]
            while stack:
                depth, node = stack.pop()
                folded = node.name in self.folded
                rows.append(Row(depth, node, bool(node.children), folded))
                if not folded:
                    stack.extend((depth + 1, child) for child in reversed(node.children))
        self.rows = rows
        self.selected = min(self.selected, max(len(rows) - 1, 0))

    def toggle(self, index: int | None = None) -> None:
        """Fold or unfold the row ``index`` (default: the selected one)."""
        row = self.rows[self.selected if index is None else index] if self.rows else None
        if row is None or not row.parent:
            return
        self.folded.symmetric_difference_update({row.node.name})
        self.lay_out(self.tree)

    def move(self, by: int) -> None:
        """Select the row ``by`` rows down (up when negative), within the rows."""
        self.selected = max(0, min(self.selected + by, len(self.rows) - 1))

    def line(self, index: int) -> StyleAndTextTuples:
        """The fragments of row ``index``."""
        row = self.rows[index]
        node = row.node
        glyph = (FOLDED if row.folded else OPEN) if row.parent else LEAF
        glyph_style = "reverse" if index == self.hovered and row.parent else "class:tree.glyph"
        status = node_status(self.tree, node) if self.tree is not None else ""
        title = node_title(node.body) if node.kind in TITLED else ""
        line: StyleAndTextTuples = [
            ("", INDENT * row.depth), (glyph_style, glyph),
            (f"class:tree.kind.{node.kind.value}", str(node.kind)), ("", " "),
            ("class:tree.name", node.name),
        ]  # fmt: skip
        if status:
            line.append((f"class:tree.status.{status}", f" [{status}]"))
        if title:
            line.append(("class:tree.title", f" — {title}"))
        if index == self.selected:
            line = [(f"{style} class:tree.selected", text) for style, text in line]
        return line

    def body(self) -> str:
        """The selected node's whole content (a block, its result, an error)."""
        if not self.rows:
            return ""
        node = self.rows[self.selected].node
        details = " ".join(f"{key}={value}" for key, value in sorted(node.attrs.items()))
        return f"{node.kind} {node.name}" + (f" ({details})" if details else "") + (
            f"\n\n{node.body}" if node.body else "")  # fmt: skip


class TreeControl(UIControl):
    """Draws a :class:`TreeLayout`; ``changed`` is called after a fold by the mouse."""

    def __init__(self, layout: TreeLayout, changed: Callable[[], None]) -> None:
        self.layout = layout
        self.changed = changed

    def is_focusable(self) -> bool:
        return True

    def create_content(self, width: int, height: int) -> UIContent:
        layout = self.layout
        return UIContent(
            get_line=layout.line, line_count=len(layout.rows),
            cursor_position=Point(0, layout.selected), show_cursor=False,
        )  # fmt: skip

    def mouse_handler(self, mouse_event: MouseEvent) -> Any:
        layout = self.layout
        index = mouse_event.position.y
        if not 0 <= index < len(layout.rows):
            return NotImplemented
        start = len(INDENT) * layout.rows[index].depth
        on_glyph = start <= mouse_event.position.x < start + len(OPEN)
        if mouse_event.event_type == MouseEventType.MOUSE_MOVE:
            hovered = index if on_glyph else None
            if hovered != layout.hovered:
                layout.hovered = hovered
                self.changed()
            return None
        if mouse_event.event_type == MouseEventType.MOUSE_UP:
            layout.selected = index
            if on_glyph:
                layout.toggle(index)
            self.changed()
            return None
        return NotImplemented
