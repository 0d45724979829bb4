"""Writing a successful attempt into the session tree, and reading plans back from it.

After a successful attempt the loop writes the response node, one summary node per summary
body, and one validated batch for the reply's named blocks. The batch is all-or-nothing:
a duplicate name or an unknown parent discards it (the tree says why) and none of those
blocks run. Change blocks carry no ``parent``/``name``; they were applied while the reply
streamed and are recorded afterwards with automatic names, outside the batch.

Plans live only in the tree: ``new-plan`` writes a plan node, ``plan-op`` adds an entry
(a plan node under a plan), finishes one (a ``done`` event under it) or aborts one (an
``abort`` child). The next pending entry is the first, in tree order, that is neither
done nor aborted, nor under an aborted plan.
"""

from __future__ import annotations

from collections.abc import Iterable

from tai_core.blocks import Block
from tai_core.tree import Node, NodeKind, NodeSpec, SessionTree

SUMMARY = "summary"
#: The kind that ends a goal: a reply that ends with it is complete without a summary.
DONE = "done"
NEW_PLAN = "new-plan"
PLAN_OP = "plan-op"
RESPONSE = "response"
DONE_EVENT = "done"
#: Signal kinds this module records into the tree; other signal kinds (``done``,
#: ``memory``) are left to the command as remaining blocks.
RECORDED = frozenset({SUMMARY, NEW_PLAN, PLAN_OP, RESPONSE})


def _block_spec(block: Block, parent: str) -> NodeSpec:
    attrs = {"kind": block.kind, "line": str(block.line)}
    if block.kind == NEW_PLAN:
        return NodeSpec(
            NodeKind.PLAN, body=block.body, name=block.params.get("name"),
            parent=block.params.get("parent"), attrs=attrs,
        )  # fmt: skip
    if block.kind == RESPONSE:
        return NodeSpec(
            NodeKind.RESPONSE, body=block.body, name=block.params.get("name"),
            parent=block.params.get("parent"), attrs=attrs,
        )  # fmt: skip
    if block.kind == PLAN_OP:
        return NodeSpec(NodeKind.BLOCK, body=block.body, parent=parent, attrs=attrs)
    return NodeSpec(
        NodeKind.BLOCK, body=block.body, name=block.params.get("name"),
        parent=block.params.get("parent") or parent, attrs=attrs,
    )  # fmt: skip


def _plan_effect(block: Block) -> NodeSpec | None:
    op, name = block.params.get("op"), block.params.get("name")
    if op == "add":
        return NodeSpec(
            NodeKind.PLAN, body=block.body, name=name, parent=block.params.get("parent")
        )
    if op == "done":
        return NodeSpec(
            NodeKind.EVENT, body=block.body, parent=name,
            attrs={"event": DONE_EVENT, "status": DONE_EVENT},
        )  # fmt: skip
    if op == "abort":
        return NodeSpec(
            NodeKind.ABORT, parent=name, attrs={"who": "model", "why": block.body or "aborted"}
        )
    return None


def record_reply(
    tree: SessionTree,
    anchor: str,
    text: str,
    applied: Iterable[Block],
    named: Iterable[Block],
) -> tuple[SessionTree, str, dict[int, str], list[str]]:
    """Write a successful reply: response, summaries, applied changes, the named batch.

    Returns the new tree, the response node's name, the node name of each recorded block
    (by its ``start`` offset) and the rejection reasons of the batch (empty when it was
    accepted). ``TreeWriteRejected`` is caught here: a rejected batch is feedback, not an
    error of the run.
    """
    from tai_core.tree import TreeWriteRejected

    tree, response = tree.add(NodeSpec(NodeKind.RESPONSE, body=text, parent=anchor))
    names: dict[int, str] = {}
    for block in applied:
        spec = NodeSpec(
            NodeKind.BLOCK, body=block.body, parent=response,
            attrs={"kind": block.kind, "status": "applied", **dict(block.params)},
        )  # fmt: skip
        tree, names[block.start] = tree.add(spec)
    batch = list(named)
    summaries = [b for b in batch if b.kind == SUMMARY]
    for block in summaries:
        tree, names[block.start] = tree.add(
            NodeSpec(NodeKind.SUMMARY, body=block.body, parent=response)
        )
    others = [b for b in batch if b.kind != SUMMARY]
    specs = [_block_spec(block, response) for block in others]
    effects = [effect for b in others if b.kind == PLAN_OP and (effect := _plan_effect(b))]
    try:
        tree, written = tree.add_batch([*specs, *effects])
    except TreeWriteRejected as rejected:
        return tree, response, names, [str(rejected)]
    names.update({block.start: name for block, name in zip(others, written, strict=False)})
    return tree, response, names, []


def _done(node: Node) -> bool:
    return any(
        child.kind == NodeKind.EVENT and child.attrs.get("event") == DONE_EVENT
        for child in node.children
    )


def next_plan_entry(tree: SessionTree) -> Node | None:
    """The first pending plan entry (a plan node under a plan), or ``None``."""
    closed_depth: int | None = None
    plan_depths: list[int] = []
    for depth, node in tree:
        if closed_depth is not None and depth > closed_depth:
            continue
        closed_depth = None
        while plan_depths and plan_depths[-1] >= depth:
            plan_depths.pop()
        if node.kind != NodeKind.PLAN:
            continue
        if tree.is_aborted(node.name) or _done(node):
            closed_depth = depth
            continue
        under_plan = bool(plan_depths)
        plan_depths.append(depth)
        has_open_entries = any(
            child.kind == NodeKind.PLAN and not tree.is_aborted(child.name) and not _done(child)
            for child in node.children
        )
        if under_plan and not has_open_entries:
            return node
    return None


def _first_line(text: str) -> str:
    return text.strip().partition("\n")[0]


def plans_in_force(tree: SessionTree) -> str:
    """The plans neither done nor aborted, each with its entries and how far each is:
    what a compacted conversation keeps in view (``""`` when there is none)."""
    sections = []
    path: list[Node] = []  # the ancestors of the node at hand
    for depth, plan in tree:
        del path[depth:]
        under_plan = bool(path) and path[-1].kind == NodeKind.PLAN
        path.append(plan)
        if plan.kind != NodeKind.PLAN or under_plan:
            continue
        if tree.is_aborted(plan.name) or _done(plan):
            continue
        entries = [
            f"- [{'aborted' if tree.is_aborted(e.name) else 'done' if _done(e) else 'pending'}]"
            f" {e.name}: {_first_line(e.body)}"
            for e in plan.children
            if e.kind == NodeKind.PLAN
        ]
        sections.append("\n".join([f"Plan {plan.name!r}: {_first_line(plan.body)}", *entries]))
    return "\n\n".join(sections)
