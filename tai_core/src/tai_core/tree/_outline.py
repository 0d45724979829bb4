"""The session tree outline: the structure the model sees at the end of each round's feedback.

The outline is text for the model, so it shows the names the model may use as ``parent``
and leaves out what would only spend its context. Its rules:

* A header line ``Session tree (N nodes):``, N counting every node of the tree, the root and
  the bookkeeping nodes included. The root itself gets no line: its children are the top
  level, and a node written without a parent lands there.
* One line per listed node, in pre-order, indented two spaces per level below the root's
  children: ``- <kind> <name>``, then `` [<status>]`` when the node has a status, then
  `` — <title>`` for the kinds a title helps (plan, goal, user-input, summary, error,
  feedback). The title is the first non-blank line of the body, stripped, cut to 60
  characters with a final ``…`` when longer; an empty body gives no title.
* A node's status is its ``status`` attribute, except that an aborted plan shows
  ``aborted`` and a node with hidden children (events, block-results) shows the status of
  the last of them that has one (a block its result's, a finished plan entry ``done``).
* ``event`` and ``block-result`` nodes are bookkeeping: they get no line, nor does anything
  below them; a block-result still shows through its block's status.
* A long run must not flood the prompt: past 200 node lines, the outline keeps the first 40
  (how the session started) and the last 150 (where it is now), with one
  ``… (K nodes omitted) …`` line between them.

The outline is a pure function of the tree version, so the same version always gives the
same text. It has no trailing newline.
"""

from __future__ import annotations

from tai_core.tree._node import Node, NodeKind
from tai_core.tree._tree import SessionTree

#: Kinds that get no outline line, nor does their subtree.
HIDDEN_KINDS = frozenset({NodeKind.EVENT, NodeKind.BLOCK_RESULT})
#: Kinds whose line ends with the first line of their body.
TITLED_KINDS = frozenset(
    {
        NodeKind.PLAN,
        NodeKind.GOAL,
        NodeKind.USER_INPUT,
        NodeKind.SUMMARY,
        NodeKind.ERROR,
        NodeKind.FEEDBACK,
    }
)
#: Longest title, the final ``…`` included.
TITLE_LENGTH = 60
#: Most node lines shown in full; a longer outline keeps a head and a tail.
MAX_LINES = 200
HEAD_LINES = 40
TAIL_LINES = 150


def outline(tree: SessionTree) -> str:
    """Return the outline of ``tree`` the model sees (see the module docstring)."""
    lines: list[str] = []
    stack = [(0, child) for child in reversed(tree.root.children)]
    while stack:
        depth, node = stack.pop()
        if node.kind in HIDDEN_KINDS:
            continue
        lines.append(_line(tree, depth, node))
        stack.extend((depth + 1, child) for child in reversed(node.children))
    if len(lines) > MAX_LINES:
        omitted = len(lines) - HEAD_LINES - TAIL_LINES
        lines = [*lines[:HEAD_LINES], f"… ({omitted} nodes omitted) …", *lines[-TAIL_LINES:]]
    count = len(tree)
    header = f"Session tree ({count} {'node' if count == 1 else 'nodes'}):"
    return "\n".join([header, *lines])


def _line(tree: SessionTree, depth: int, node: Node) -> str:
    text = f"{'  ' * depth}- {node.kind} {node.name}"
    status = node_status(tree, node)
    if status:
        text += f" [{status}]"
    if node.kind in TITLED_KINDS:
        title = node_title(node.body)
        if title:
            text += f" — {title}"
    return text


def node_status(tree: SessionTree, node: Node) -> str:
    """What became of ``node``: a plan's ``aborted``, a block's result status, or ``""``."""
    if node.kind is NodeKind.PLAN and tree.is_aborted(node.name):
        return "aborted"
    for child in reversed(node.children):
        if child.kind in HIDDEN_KINDS and "status" in child.attrs:
            return child.attrs["status"]
    return node.attrs.get("status", "")


def node_title(body: str) -> str:
    """The first line of ``body``, shortened to a title."""
    first = body.strip().split("\n", 1)[0].rstrip()
    if len(first) > TITLE_LENGTH:
        return first[: TITLE_LENGTH - 1] + "…"
    return first
