"""The session tree value: path-copying writes, a persistent name index, batch validation.

A :class:`SessionTree` holds four persistent values and nothing else:

* ``root``, the session node, whose descendants are the whole tree;
* a name index, ``pmap`` of name → path, the tuple of child positions leading from the root
  to the node (the root's path is ``()``). Children are only ever appended, so a path, once
  given, names the same node in every later version;
* the next auto-name number of each kind, a tuple with one slot per kind;
* the set of aborted plans.

A write descends the parent's path (one vector lookup per level), appends the new leaf to the
parent's children and rebuilds the nodes on the path bottom-up, each with its children vector
changed at one position (``pvector.set``/``append``, O(log k) in the number of siblings).
With the index update (``pmap.set``, O(log n)) a write costs O(depth + log n) and allocates
O(depth) nodes; every node off the path is shared, by identity, with the previous version.

A batch is first checked as a whole against the tree and against itself (see
:meth:`SessionTree.add_batch` for the rules); only a batch without a single fault is applied,
so a rejected write leaves no trace: there is no partially written tree to roll back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from pyrsistent import PMap, PSet, PVector, pmap, pset

from tai_core.tree._node import ROOT_NAME, Node, NodeKind, NodeSpec, leaf, with_children

#: Longest node name the tree accepts.
MAX_NAME_LENGTH = 64
_VALID_NAME = re.compile(r"[A-Za-z0-9_.:-]+")

_Path = tuple[int, ...]
#: Position of each kind's next auto-name number in a tree's counters.
_KIND_SLOTS = {kind: slot for slot, kind in enumerate(NodeKind)}
_set_slot = object.__setattr__


class TreeWriteRejected(Exception):
    """A batch of node specs the tree refused as a whole; nothing of it was written.

    ``reasons`` holds one sentence per fault, each naming the spec by its 1-based position in
    the batch, its kind and its (requested or auto) name. ``str()`` is one paragraph meant to
    be fed back to the model as a System note.
    """

    def __init__(self, reasons: tuple[str, ...], batch_size: int) -> None:
        super().__init__(reasons, batch_size)
        self.reasons = reasons
        self.batch_size = batch_size

    def __str__(self) -> str:
        size = "1 node" if self.batch_size == 1 else f"{self.batch_size} nodes"
        return (
            f"The session tree discarded the whole batch ({size}); nothing of it was written. "
            + " ".join(f"{reason}." for reason in self.reasons)
        )


class SessionTree:
    """One immutable version of a session tree; every write returns a new version.

    ``SessionTree()`` is the empty tree: the root alone, kind and name ``session``. Versions
    are compared by identity; their ``root`` nodes compare structurally.
    """

    __slots__ = ("_aborted", "_counters", "_index", "_root")

    _root: Node
    _index: PMap[str, _Path]
    _counters: tuple[int, ...]
    _aborted: PSet[str]

    def __init__(self) -> None:
        _set_slot(self, "_root", Node(ROOT_NAME, NodeKind.SESSION))
        _set_slot(self, "_index", pmap({ROOT_NAME: ()}))
        _set_slot(self, "_counters", (1,) * len(_KIND_SLOTS))
        _set_slot(self, "_aborted", pset())

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"SessionTree is immutable; cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"SessionTree is immutable; cannot delete {name!r}")

    def __repr__(self) -> str:
        return f"<SessionTree of {len(self)} nodes>"

    # -- reading -------------------------------------------------------------------------

    @property
    def root(self) -> Node:
        """The session node; its subtree is the whole tree."""
        return self._root

    def __len__(self) -> int:
        """Number of nodes, the root included."""
        return len(self._index)

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __iter__(self) -> Iterator[tuple[int, Node]]:
        """Yield ``(depth, node)`` in pre-order, the root first at depth 0."""
        stack: list[tuple[int, Node]] = [(0, self._root)]
        while stack:
            depth, node = stack.pop()
            yield depth, node
            stack.extend((depth + 1, child) for child in reversed(node.children))

    def get(self, name: str) -> Node:
        """Return the node named ``name``; raise :class:`KeyError` when there is none."""
        return self._node_at(self._path_of(name))

    def parent_of(self, name: str) -> Node | None:
        """Return the parent of node ``name``, ``None`` for the root."""
        path = self._path_of(name)
        return self._node_at(path[:-1]) if path else None

    def children(self, name: str) -> PVector[Node]:
        """Return the children of node ``name``, in the order they were written."""
        return self.get(name).children

    def path(self, name: str) -> tuple[str, ...]:
        """Return the names from the root down to node ``name``, both included."""
        node = self._root
        names = [node.name]
        for position in self._path_of(name):
            node = node.children[position]
            names.append(node.name)
        return tuple(names)

    def is_aborted(self, plan_name: str) -> bool:
        """Tell whether node ``plan_name`` (which must exist) is a plan with an abort child."""
        self._path_of(plan_name)
        return plan_name in self._aborted

    def _path_of(self, name: str) -> _Path:
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"no node named {name!r} in the session tree") from None

    # -- writing -------------------------------------------------------------------------

    def add(self, spec: NodeSpec) -> tuple[SessionTree, str]:
        """Write the node ``spec`` asks for; return the new version and the node's name.

        Raise :class:`TreeWriteRejected` under the rules of :meth:`add_batch`.
        """
        tree, (name,) = self.add_batch((spec,))
        return tree, name

    def add_batch(self, specs: Iterable[NodeSpec]) -> tuple[SessionTree, tuple[str, ...]]:
        """Write all of ``specs``, in order, or none; return the new version and the names.

        A spec may take as parent any node of the tree or any earlier spec of the batch.
        Auto names are ``<kind>-<n>``, n counting per kind from 1 and skipping names already
        taken in the tree or requested anywhere in the batch. The whole batch is rejected,
        with :class:`TreeWriteRejected` listing every fault, when a spec

        * requests an invalid name (not 1 to 64 of ``A-Z a-z 0-9 _ . : -``) or a name taken
          in the tree or by an earlier spec of the batch;
        * names a parent that is neither in the tree nor earlier in the batch;
        * is of kind ``session`` (only the root is);
        * hangs under an aborted plan (an aborted plan is closed, even to a second abort);
        * is an ``abort`` whose parent is not a plan, or a ``block-result`` whose parent is not
          a block.

        An empty batch writes nothing and returns this very version.
        """
        batch = tuple(specs)
        if not batch:
            return self, ()
        names, parents, parent_paths, counters, aborted = self._check(batch)
        root = self._root
        index = self._index.evolver()
        for name, parent, parent_path, spec in zip(
            names, parents, parent_paths, batch, strict=True
        ):
            at = index[parent] if parent_path is None else parent_path
            root, path = _attach(root, at, leaf(name, spec))
            index.set(name, path)
        tree = object.__new__(SessionTree)
        _set_slot(tree, "_root", root)
        _set_slot(tree, "_index", index.persistent())
        _set_slot(tree, "_counters", counters)
        _set_slot(tree, "_aborted", self._aborted.update(aborted) if aborted else self._aborted)
        return tree, names

    def abort_plan(self, plan_name: str, who: str, why: str) -> tuple[SessionTree, str]:
        """Close plan ``plan_name`` with an ``abort`` child recording ``who`` and ``why``.

        A plan is never edited: to revise it, abort it and write the new plan as a new node.
        Return the new version and the abort node's name.
        """
        return self.add(NodeSpec(NodeKind.ABORT, parent=plan_name, attrs={"who": who, "why": why}))

    def _check(
        self, batch: tuple[NodeSpec, ...]
    ) -> tuple[
        tuple[str, ...], tuple[str, ...], tuple[_Path | None, ...], tuple[int, ...], set[str]
    ]:
        """Resolve the names and parents of ``batch`` or raise with all its faults.

        Return the names, the parent names, the parent paths (``None`` for a parent written by
        the batch itself), the auto-name counters after the batch and the plans it aborts.
        """
        index = self._index
        requested = {spec.name for spec in batch if spec.name is not None}
        counters = list(self._counters)
        earlier: dict[str, tuple[int, NodeKind]] = {}
        aborted: set[str] = set()
        names: list[str] = []
        parents: list[str] = []
        parent_paths: list[_Path | None] = []
        reasons: list[str] = []
        for position, spec in enumerate(batch, start=1):
            kind, name = spec.kind, spec.name
            parent = ROOT_NAME if spec.parent is None else spec.parent
            parent_path = index.get(parent)
            if name is None:
                slot = _KIND_SLOTS[kind]
                number = counters[slot]
                name = f"{kind}-{number}"
                while name in index or name in requested:
                    number += 1
                    name = f"{kind}-{number}"
                counters[slot] = number + 1
                faults = []
                fresh = True
            else:
                faults = _name_faults(name, index, earlier)
                fresh = name not in index and name not in earlier
            if kind is NodeKind.SESSION:
                faults.append("only the root may be a session node")
            elif fresh and parent == name:
                faults.append("a node cannot be its own parent")
            else:
                faults += self._placement_faults(
                    kind, parent, parent_path, earlier=earlier, aborted=aborted, requested=requested
                )
            if faults:
                named = f"{name!r}" if spec.name is not None else f"(auto-named {name!r})"
                reasons.extend(f"#{position} {kind} {named}: {fault}" for fault in faults)
            elif kind is NodeKind.ABORT:
                aborted.add(parent)
            if fresh:
                earlier[name] = (position, kind)
            names.append(name)
            parents.append(parent)
            parent_paths.append(parent_path)
        if reasons:
            raise TreeWriteRejected(tuple(reasons), len(batch))
        return tuple(names), tuple(parents), tuple(parent_paths), tuple(counters), aborted

    def _placement_faults(
        self,
        kind: NodeKind,
        parent: str,
        parent_path: _Path | None,
        *,
        earlier: dict[str, tuple[int, NodeKind]],
        aborted: set[str],
        requested: set[str],
    ) -> list[str]:
        """Return what is wrong with writing a ``kind`` node under ``parent``.

        ``parent_path`` is the parent's path when the parent is in the tree. ``earlier`` maps
        the names of the batch so far to their position and kind, ``aborted`` holds the plans
        the batch aborts so far, ``requested`` every name the batch asks for.
        """
        if parent_path is not None:
            parent_kind = self._node_at(parent_path).kind
        elif parent in earlier:
            parent_kind = earlier[parent][1]
        elif parent in requested:
            return [f"the parent {parent!r} is only written later in this batch"]
        else:
            return [f"the parent {parent!r} does not exist"]
        closed = parent_kind is NodeKind.PLAN and (parent in aborted or parent in self._aborted)
        if kind is NodeKind.ABORT:
            if parent_kind is not NodeKind.PLAN:
                return [f"an abort must hang under a plan, and {parent!r} is a {parent_kind}"]
            if closed:
                return [f"the plan {parent!r} is already aborted"]
            return []
        faults = []
        if closed:
            faults.append(f"the plan {parent!r} is aborted and takes no new children")
        if kind is NodeKind.BLOCK_RESULT and parent_kind is not NodeKind.BLOCK:
            faults.append(
                f"a block-result must hang under a block, and {parent!r} is a {parent_kind}"
            )
        return faults

    def _node_at(self, path: _Path) -> Node:
        node = self._root
        for position in path:
            node = node.children[position]
        return node


def _name_faults(
    name: str, index: PMap[str, _Path], earlier: dict[str, tuple[int, NodeKind]]
) -> list[str]:
    """Return what is wrong with the requested name ``name`` (``earlier`` as above)."""
    if name in index:
        return [f"the name {name!r} is already taken in the session tree"]
    if name in earlier:
        return [f"the name {name!r} is already used by #{earlier[name][0]}"]
    if len(name) > MAX_NAME_LENGTH or not _VALID_NAME.fullmatch(name):
        return [
            f"{name!r} is not a valid node name (use 1 to {MAX_NAME_LENGTH} of the characters"
            " A-Z a-z 0-9 _ . : -)"
        ]
    return []


def _attach(root: Node, parent_path: _Path, node: Node) -> tuple[Node, _Path]:
    """Append ``node`` under the node at ``parent_path``; return the new root and its path.

    Only the nodes on ``parent_path`` are copied; every other node of the result is the very
    object it was under ``root``.
    """
    spine = [root]
    for position in parent_path:
        spine.append(spine[-1].children[position])
    parent = spine.pop()
    siblings = parent.children
    copy = with_children(parent, siblings.append(node))
    for position in reversed(parent_path):
        above = spine.pop()
        copy = with_children(above, above.children.set(position, copy))
    return copy, (*parent_path, len(siblings))
