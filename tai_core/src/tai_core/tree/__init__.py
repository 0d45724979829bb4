"""The immutable session tree: every operation of a run is one write to it.

A run of tai — user input, model responses, summaries, blocks and their results, errors,
round feedback, plans and their aborts, the goal runner's verdicts and the loop's own
bookkeeping events — is recorded as nodes of one tree rooted at the ``session`` node.

Why persistent, with path copying
    Many readers hold the tree while the loop keeps writing: the TUI renders a version, the
    records serialise one, a retry starts again from the version it had before the failed
    attempt. Copying the whole tree per write would cost O(n); mutating it in place would
    let a reader see half a write or a write it did not ask for. A path-copying write copies
    only the nodes from the written node's parent up to the root and shares every other
    subtree, by pointer, with the version it came from. Each write thus returns a new
    version in O(depth + log n) time and space, and the old version is untouched.

The invariant
    Every version stays valid and unchanged forever. Nothing is ever edited in place — not a
    body, not an attribute, not a children list — so any version a reader holds is safe to
    walk at any time, a retry re-uses an old version as it is, and two versions share all
    they have in common. A plan is revised by aborting it (an ``abort`` child records who
    and why; an aborted plan takes no more children) and writing a new plan node.

Validated writes
    Nodes are asked for with :class:`NodeSpec` and written one at a time or in a batch that
    is all-or-nothing: a duplicate or invalid name, an unknown parent or a kind under a
    parent it may not have discards the whole batch with :class:`TreeWriteRejected`, whose
    text is ready to be fed back to the model as a System note.

What the model sees
    :func:`outline` renders a version as the indented list that closes every
    round-triggering feedback, so the model knows the names it may use as parents.
"""

from tai_core.tree._node import ROOT_NAME, Node, NodeKind, NodeSpec
from tai_core.tree._outline import node_status, node_title, outline
from tai_core.tree._tree import MAX_NAME_LENGTH, SessionTree, TreeWriteRejected

__all__ = [
    "MAX_NAME_LENGTH",
    "ROOT_NAME",
    "Node",
    "NodeKind",
    "NodeSpec",
    "SessionTree",
    "TreeWriteRejected",
    "node_status",
    "node_title",
    "outline",
]
