"""The values a session tree is made of: node kinds, nodes and the specs that ask for nodes.

A :class:`Node` is frozen and holds its children in a persistent vector, so a node is the
whole subtree below it and can be shared by any number of tree versions. Nodes are written
only through :class:`~tai_core.tree.SessionTree`, which turns a :class:`NodeSpec` (what the
caller wants: kind, body, optional name and parent) into a node with a resolved name.

The tree rebuilds the nodes on a written path with :func:`with_children`, which skips the
attrs ``__init__`` (converters included): the copied fields are already converted, and a
write copies one node per level, so this is the hottest line of the tree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum

from attrs import field, frozen
from pyrsistent import PMap, PVector, pmap, pvector


class NodeKind(StrEnum):
    """What a node records. Every kind but :attr:`SESSION` (the root) is written by the loop."""

    SESSION = "session"
    USER_INPUT = "user-input"
    RESPONSE = "response"
    SUMMARY = "summary"
    BLOCK = "block"
    BLOCK_RESULT = "block-result"
    ERROR = "error"
    FEEDBACK = "feedback"
    EVENT = "event"
    PLAN = "plan"
    ABORT = "abort"
    GOAL = "goal"


#: Name and kind of the root node of every session tree.
ROOT_NAME = "session"


def _to_attrs(value: Mapping[str, str]) -> PMap[str, str]:
    return value if isinstance(value, PMap) else pmap(value)


def _to_children(value: Iterable[Node]) -> PVector[Node]:
    return value if isinstance(value, PVector) else pvector(value)


@frozen(repr=False)
class Node:
    """One node of the session tree and, through ``children``, the subtree below it.

    ``name`` is unique in its tree; ``attrs`` carries small string facts (block kind,
    ``status``, header parameters, abort ``who``/``why``). Equality is structural; the repr
    counts the children instead of spelling out the subtree, which may be the whole session.
    """

    name: str
    kind: NodeKind = field(converter=NodeKind)
    body: str = ""
    attrs: PMap[str, str] = field(factory=pmap, converter=_to_attrs)
    children: PVector[Node] = field(factory=pvector, converter=_to_children)

    def __repr__(self) -> str:
        return (
            f"Node(name={self.name!r}, kind={str(self.kind)!r}, body={self.body!r},"
            f" attrs={dict(self.attrs)!r}, children=<{len(self.children)} nodes>)"
        )


@frozen
class NodeSpec:
    """A request for one node: ``name=None`` asks for an auto name, ``parent=None`` for the root.

    ``kind`` accepts the kind's text (``"block-result"``) as well as a :class:`NodeKind`.
    """

    kind: NodeKind = field(converter=NodeKind)
    body: str = ""
    name: str | None = None
    parent: str | None = None
    attrs: PMap[str, str] = field(factory=pmap, converter=_to_attrs)


_NO_CHILDREN: PVector[Node] = pvector()
_new_object = object.__new__
# The slot descriptors of Node: setting through them skips the frozen __setattr__ guard.
_set_name, _set_kind, _set_body, _set_attrs, _set_children = (
    Node.__dict__[slot].__set__ for slot in ("name", "kind", "body", "attrs", "children")
)


def with_children(node: Node, children: PVector[Node]) -> Node:
    """Return a copy of ``node`` whose children are ``children`` (``node`` is unchanged)."""
    copy = _new_object(Node)
    _set_name(copy, node.name)
    _set_kind(copy, node.kind)
    _set_body(copy, node.body)
    _set_attrs(copy, node.attrs)
    _set_children(copy, children)
    return copy


def leaf(name: str, spec: NodeSpec) -> Node:
    """Return the childless node ``spec`` asks for, named ``name``."""
    node = _new_object(Node)
    _set_name(node, name)
    _set_kind(node, spec.kind)
    _set_body(node, spec.body)
    _set_attrs(node, spec.attrs)
    _set_children(node, _NO_CHILDREN)
    return node
