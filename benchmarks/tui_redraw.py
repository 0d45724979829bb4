"""A full redraw of the terminal UI's Tree tab with a session tree of 10,000 nodes.

Target: median at most 50 ms for the whole screen (120 x 40), drawn by prompt_toolkit's
own renderer into a VT100 output whose bytes are discarded — so the figure includes
laying out the screen, drawing the rows, the status line and the escape sequences, all
but the terminal's own work. The tree is 100 user inputs with 99 blocks each (10,000
nodes), every node unfolded, the selection in the middle, so the window shows a screenful
out of 10,000 rows. Baseline, alternated with every run: the same redraw with a tree of
100 nodes (one input, 99 blocks): the ratio says what the size of the tree costs (1.0:
nothing, as the Tree tab draws only the rows it shows).

Method: 15 runs after a warm-up, each a forced full redraw (the renderer is reset, so
nothing is diffed against the previous screen); medians (min-max).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import finish
from _timing import alternate, ratio, timed
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import DummyInput
from prompt_toolkit.output.vt100 import Vt100_Output

from tai_core.events import TreeChanged
from tai_core.tree import NodeKind, NodeSpec, SessionTree
from tai_core.tui._app import TaiApp
from tai_core.tui._state import UiState

RUNS = 15
TARGET = "50 ms"
TARGET_S = 0.050


def tree_of(inputs: int, blocks: int) -> SessionTree:
    specs = []
    for i in range(inputs):
        specs.append(NodeSpec(NodeKind.USER_INPUT, body=f"task {i}", name=f"in-{i}"))
        specs += [
            NodeSpec(
                NodeKind.BLOCK,
                body=f"go test ./pkg{j}",
                name=f"b-{i}-{j}",
                parent=f"in-{i}",
                attrs={"status": "ok"},
            )
            for j in range(blocks)
        ]
    tree, _ = SessionTree().add_batch(specs)
    return tree


def redraw(inputs: int) -> Callable[[], float]:
    """A function that redraws the UI of a tree of ``inputs`` x 100 nodes in full."""
    state = UiState("s")
    state.apply(TreeChanged("s", tree_of(inputs, 99)))
    output = Vt100_Output(io.StringIO(), lambda: Size(rows=40, columns=120), term="xterm")
    app = TaiApp(state, lambda: None, lambda *_: None, input=DummyInput(), output=output)
    app.invalidate()
    app.tree.selected = len(app.tree.rows) // 2
    application = app.application

    def once() -> float:
        application.renderer.reset()
        with set_app(application):  # as while the app runs: its own key bindings, style
            return timed(lambda: application.renderer.render(application, application.layout))

    return once


def main() -> None:
    times = alternate({"large": redraw(100), "small": redraw(1)}, RUNS)
    large, share = times["large"], ratio(times["large"], times["small"])
    finish(
        f"tui_redraw: full redraw of the Tree tab with 10,000 nodes {large.text()} = "
        f"{share.text('x', 1)} the same with 100 nodes; medians (min-max) of {RUNS} "
        f"alternated runs; target <= {TARGET}",
        {f"<= {TARGET}": large.median <= TARGET_S},
    )


if __name__ == "__main__":
    main()
