"""Property tests of the session tree: random write sequences against a reference model.

Every generated sequence of writes (single adds, batches, plan aborts; valid and invalid:
names and parents are drawn from the tree, the batch and a few bad or guessed names, so
that collisions, unknown parents and closed plans happen often) is applied to a tree while
every version is kept. A plain-dict reference model says which writes must succeed and which
names they get; after each write the new version is checked against a brute-force walk, and
at the end every version must still read and render exactly as it did when it was made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from tai_core.tree import (
    ROOT_NAME,
    Node,
    NodeKind,
    NodeSpec,
    SessionTree,
    TreeWriteRejected,
    outline,
)

VALID_NAME = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
#: Names no write can use; "plan-2" and "event-1" also collide with auto names.
INVALID_NAMES = ["bad name", "", "x" * 65, "a/b"]
GUESSED_NAMES = ["plan-1", "plan-2", "event-1", "block-1", "ghost"]
#: Kinds drawn twice as often, so that block-results and aborts find their parents.
OFTEN_KINDS = [NodeKind.PLAN, NodeKind.BLOCK, NodeKind.BLOCK_RESULT]
#: The parent kind a kind requires.
REQUIRED_PARENT = {NodeKind.ABORT: NodeKind.PLAN, NodeKind.BLOCK_RESULT: NodeKind.BLOCK}


def draw_spec(data: st.DataObject, kinds: dict[str, NodeKind], earlier: list[NodeSpec]) -> NodeSpec:
    """A spec whose name and parent are often, but not always, good choices.

    ``kinds`` maps the names of the tree to their kinds, ``earlier`` holds the specs drawn
    before in the same batch.
    """
    kind = data.draw(st.sampled_from([*NodeKind, *OFTEN_KINDS]))
    requested = {spec.name: spec.kind for spec in earlier if spec.name is not None}
    known = {**kinds, **requested}
    fitting = sorted(
        name
        for name, parent_kind in known.items()
        if kind not in REQUIRED_PARENT or parent_kind is REQUIRED_PARENT[kind]
    )
    name_choice = data.draw(st.sampled_from(["auto", "auto", "auto", "fresh", "taken", "invalid"]))
    name = {
        "auto": st.none(),
        "fresh": st.integers(0, 30).map(lambda n: f"n{n}") | st.sampled_from(GUESSED_NAMES),
        "taken": st.sampled_from(sorted(known)),
        "invalid": st.sampled_from(INVALID_NAMES),
    }[name_choice]
    parent_choice = data.draw(
        st.sampled_from(["root", "fitting", "fitting", "fitting", "batch", "unknown"])
    )
    parent = {
        "root": st.none(),
        "fitting": st.sampled_from(fitting or sorted(known)),
        "batch": st.sampled_from(sorted(requested or known)),
        "unknown": st.sampled_from([*GUESSED_NAMES, *INVALID_NAMES]),
    }[parent_choice]
    return NodeSpec(
        kind=kind,
        body=data.draw(st.sampled_from(["", "Plan A\nin detail", "y" * 70])),
        name=data.draw(name),
        parent=data.draw(parent),
        attrs=data.draw(st.sampled_from([{}, {"status": "ok"}, {"status": "failed"}])),
    )


def draw_batch(data: st.DataObject, kinds: dict[str, NodeKind], size: int) -> list[NodeSpec]:
    batch: list[NodeSpec] = []
    for _ in range(size):
        batch.append(draw_spec(data, kinds, batch))
    return batch


@dataclass
class Model:
    """The rules, written as plainly as possible over dicts."""

    parent: dict[str, str | None] = field(default_factory=lambda: {ROOT_NAME: None})
    kind: dict[str, NodeKind] = field(default_factory=lambda: {ROOT_NAME: NodeKind.SESSION})
    aborted: set[str] = field(default_factory=set)
    counters: dict[NodeKind, int] = field(default_factory=dict)

    def write(self, batch: list[NodeSpec]) -> tuple[str, ...] | int:
        """Apply ``batch`` and return its names, or return the position of its first fault."""
        parent, kind = dict(self.parent), dict(self.kind)
        aborted, counters = set(self.aborted), dict(self.counters)
        requested = {spec.name for spec in batch if spec.name is not None}
        written = []
        for position, spec in enumerate(batch, start=1):
            if spec.name is None:
                number = counters.get(spec.kind, 1)
                while f"{spec.kind}-{number}" in kind.keys() | requested:
                    number += 1
                name = f"{spec.kind}-{number}"
                counters[spec.kind] = number + 1
            else:
                name = spec.name
            up = ROOT_NAME if spec.parent is None else spec.parent
            if (
                name in kind
                or not VALID_NAME.fullmatch(name)
                or spec.kind is NodeKind.SESSION
                or up not in kind
                or up in aborted
                or (spec.kind is NodeKind.ABORT and kind[up] is not NodeKind.PLAN)
                or (spec.kind is NodeKind.BLOCK_RESULT and kind[up] is not NodeKind.BLOCK)
            ):
                return position
            parent[name], kind[name] = up, spec.kind
            if spec.kind is NodeKind.ABORT:
                aborted.add(up)
            written.append(name)
        self.parent, self.kind, self.aborted, self.counters = parent, kind, aborted, counters
        return tuple(written)


def dump(tree: SessionTree) -> list[tuple[int, str, str, str, tuple[tuple[str, str], ...], int]]:
    return [
        (
            depth,
            node.name,
            node.kind,
            node.body,
            tuple(sorted(node.attrs.items())),
            len(node.children),
        )
        for depth, node in tree
    ]


def walk(tree: SessionTree) -> dict[str, tuple[Node, tuple[str, ...], Node | None]]:
    """Brute force: every node by name, with its path of names and its parent."""
    found: dict[str, tuple[Node, tuple[str, ...], Node | None]] = {}
    stack: list[tuple[Node, tuple[str, ...], Node | None]] = [(tree.root, (ROOT_NAME,), None)]
    while stack:
        node, path, parent = stack.pop()
        assert node.name not in found, f"duplicate name {node.name!r}"
        found[node.name] = (node, path, parent)
        stack.extend((child, (*path, child.name), node) for child in node.children)
    return found


def check_version(tree: SessionTree, model: Model) -> None:
    found = walk(tree)
    assert len(tree) == len(found) == len(model.kind)
    for name, (node, path, parent) in found.items():
        assert name in tree
        assert tree.get(name) is node
        assert tree.path(name) == path
        assert tree.parent_of(name) is parent
        assert tree.children(name) is node.children
        assert node.kind is model.kind[name]
        assert (parent.name if parent else None) == model.parent[name]
        aborts = [child for child in node.children if child.kind is NodeKind.ABORT]
        assert tree.is_aborted(name) == bool(aborts) == (name in model.aborted)
        if aborts:
            assert node.kind is NodeKind.PLAN
            assert node.children[-1] is aborts[0]
            assert len(aborts) == 1
        if node.kind is NodeKind.BLOCK_RESULT:
            assert parent is not None
            assert parent.kind is NodeKind.BLOCK


def check_shared(old: SessionTree, new: SessionTree, names: tuple[str, ...]) -> None:
    """Every subtree of ``old`` that holds none of the new nodes is shared by ``new``."""
    touched = {step for name in names for step in new.path(name)}
    stack = [(old.root, new.root)]
    while stack:
        before, after = stack.pop()
        assert (before is after) == (before.name not in touched)
        if before is not after:
            for position, child in enumerate(before.children):
                stack.append((child, after.children[position]))


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.data())
def test_random_writes_keep_every_version(data: st.DataObject) -> None:
    model = Model()
    tree = SessionTree()
    versions = [(tree, outline(tree), dump(tree))]
    for _ in range(data.draw(st.integers(0, 30), label="writes")):
        op = data.draw(st.sampled_from(["add", "batch", "abort"]))
        if op == "abort":
            plans = sorted(name for name, kind in model.kind.items() if kind is NodeKind.PLAN)
            plan = data.draw(st.sampled_from([*plans, *plans, *plans, "ghost", ROOT_NAME]))
            batch = [NodeSpec(NodeKind.ABORT, parent=plan, attrs={"who": "t", "why": "w"})]
        else:
            size = 1 if op == "add" else data.draw(st.integers(0, 5))
            batch = draw_batch(data, model.kind, size)
        expected = model.write(batch)
        before = dump(tree)
        try:
            if op == "add":
                new, name = tree.add(batch[0])
                written: tuple[str, ...] = (name,)
            elif op == "batch":
                new, written = tree.add_batch(batch)
            else:
                new, name = tree.abort_plan(plan, "t", "w")
                written = (name,)
        except TreeWriteRejected as error:
            assert isinstance(expected, int), f"rejected a valid write: {error}"
            first_fault = min(int(reason.split()[0].lstrip("#")) for reason in error.reasons)
            assert first_fault == expected
            assert str(error).startswith("The session tree discarded the whole batch")
            assert dump(tree) == before
            event(f"{op} rejected")
            continue
        event(f"{op} accepted")
        for spec in batch:
            event(f"wrote a {spec.kind}")
        assert written == expected
        check_version(new, model)
        check_shared(tree, new, written)
        assert dump(tree) == before
        tree = new
        versions.append((tree, outline(tree), dump(tree)))
    for version, text, nodes in versions:
        assert outline(version) == text
        assert dump(version) == nodes


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.sampled_from(list(NodeKind)[1:])), max_size=60))
def test_index_matches_walk_for_deep_random_trees(picks: list[tuple[int, NodeKind]]) -> None:
    """Grow a tree by hanging each node under an earlier one picked at random."""
    tree = SessionTree()
    model = Model()
    for pick, kind in picks:
        existing = [node.name for _, node in tree]
        parent = existing[pick % len(existing)]
        spec = NodeSpec(kind, parent=parent)
        expected = model.write([spec])
        try:
            new, name = tree.add(spec)
        except TreeWriteRejected:
            assert isinstance(expected, int)
            continue
        assert (name,) == expected
        check_shared(tree, new, (name,))
        tree = new
    check_version(tree, model)
