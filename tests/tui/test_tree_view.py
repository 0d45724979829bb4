"""The Tree tab's layout: folds, the selected node's content, and drawing only the rows a
screen shows (a tree of ten thousand nodes costs a screenful)."""

from __future__ import annotations

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import Window
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition

from tai_core.tree import NodeKind, NodeSpec, SessionTree
from tai_core.tui._tree import TreeControl, TreeLayout


def tree_of(inputs: int, blocks: int) -> SessionTree:
    tree = SessionTree()
    specs = []
    for i in range(inputs):
        specs.append(NodeSpec(NodeKind.USER_INPUT, body=f"task {i}", name=f"in-{i}"))
        specs += [NodeSpec(NodeKind.BLOCK, body=f"go test ./pkg{j}", name=f"b-{i}-{j}",
                           parent=f"in-{i}", attrs={"status": "ok"})
                  for j in range(blocks)]  # fmt: skip
    tree, _ = tree.add_batch(specs)
    return tree


def text(layout: TreeLayout, index: int) -> str:
    return "".join(fragment[1] for fragment in layout.line(index))


def test_folding_and_the_selected_nodes_content() -> None:
    layout = TreeLayout()
    layout.lay_out(tree_of(2, 2))
    assert [text(layout, i) for i in range(len(layout.rows))] == [
        "▾ user-input in-0 — task 0",
        "    block b-0-0 [ok] — go test ./pkg0",
        "    block b-0-1 [ok] — go test ./pkg1",
        "▾ user-input in-1 — task 1",
        "    block b-1-0 [ok] — go test ./pkg0",
        "    block b-1-1 [ok] — go test ./pkg1",
    ]
    layout.toggle()
    assert [text(layout, i) for i in range(len(layout.rows))][:2] == [
        "▸ user-input in-0 — task 0", "▾ user-input in-1 — task 1"]  # fmt: skip
    layout.move(1)
    layout.move(5)
    assert layout.selected == 3  # the last row, after in-1's two blocks
    assert layout.body() == "block b-1-1 (status=ok)\n\ngo test ./pkg1"
    layout.lay_out(tree_of(2, 3))  # a new tree keeps the folds
    assert len(layout.rows) == 5


class Counting(TreeLayout):
    """A layout that notes which rows were drawn."""

    drawn: list[int]

    def line(self, index: int) -> StyleAndTextTuples:
        self.drawn.append(index)
        return super().line(index)


def test_only_the_shown_rows_are_drawn() -> None:
    layout = Counting()
    layout.drawn = []
    layout.lay_out(tree_of(100, 99))  # 10,000 nodes
    assert len(layout.rows) == 10_000
    layout.selected = 5_000
    window = Window(TreeControl(layout, lambda: None), wrap_lines=False)
    window.write_to_screen(Screen(), MouseHandlers(), WritePosition(0, 0, 80, 24),
                           parent_style="", erase_bg=False, z_index=None)  # fmt: skip
    assert 0 < len(set(layout.drawn)) <= 24 + 2
    assert 5_000 in layout.drawn  # the window scrolled to the selected row


def test_the_glyph_under_the_mouse_is_reversed_and_a_click_folds() -> None:
    from prompt_toolkit.data_structures import Point
    from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType

    layout = TreeLayout()
    layout.lay_out(tree_of(2, 2))
    redrawn: list[bool] = []
    control = TreeControl(layout, lambda: redrawn.append(True))

    def mouse(kind: MouseEventType, x: int, y: int) -> None:
        control.mouse_handler(MouseEvent(Point(x, y), kind, MouseButton.LEFT, frozenset()))

    mouse(MouseEventType.MOUSE_MOVE, 0, 3)  # over in-1's ▾
    assert layout.hovered == 3 and ("reverse", "▾ ") in layout.line(3)
    mouse(MouseEventType.MOUSE_MOVE, 12, 3)  # over its name: no glyph reversed
    assert layout.hovered is None and all(style != "reverse" for style, _ in layout.line(3))
    mouse(MouseEventType.MOUSE_MOVE, 4, 1)  # a leaf has no glyph to reverse
    assert layout.hovered is None
    mouse(MouseEventType.MOUSE_UP, 1, 3)
    assert layout.folded == {"in-1"} and layout.selected == 3 and len(redrawn) == 3
