"""The session tree: path-copying writes, names, batch validation, plans, the outline."""

from __future__ import annotations

import attrs
import pytest

from tai_core.tree import (
    MAX_NAME_LENGTH,
    ROOT_NAME,
    Node,
    NodeKind,
    NodeSpec,
    SessionTree,
    TreeWriteRejected,
    outline,
)


def write(tree: SessionTree, *specs: NodeSpec) -> SessionTree:
    new, _ = tree.add_batch(specs)
    return new


def snapshot(tree: SessionTree) -> list[tuple[int, str, str, str, dict[str, str], int]]:
    """Everything a reader can see of a version, as plain values."""
    return [
        (depth, node.name, node.kind, node.body, dict(node.attrs), len(node.children))
        for depth, node in tree
    ]


def rejection(tree: SessionTree, *specs: NodeSpec) -> TreeWriteRejected:
    before = snapshot(tree)
    root = tree.root
    with pytest.raises(TreeWriteRejected) as caught:
        tree.add_batch(specs)
    assert tree.root is root
    assert snapshot(tree) == before
    return caught.value


@pytest.fixture
def deep() -> SessionTree:
    """Three rounds, each with two responses of three blocks, each block with a result."""
    specs = []
    for r in range(3):
        specs.append(NodeSpec(NodeKind.USER_INPUT, f"round {r}", name=f"u{r}"))
        for s in range(2):
            specs.append(NodeSpec(NodeKind.RESPONSE, name=f"r{r}{s}", parent=f"u{r}"))
            for b in range(3):
                block = f"b{r}{s}{b}"
                specs.append(NodeSpec(NodeKind.BLOCK, name=block, parent=f"r{r}{s}"))
                specs.append(NodeSpec(NodeKind.BLOCK_RESULT, name=f"{block}.res", parent=block))
    return write(SessionTree(), *specs)


# -- the empty tree and reading ------------------------------------------------------------


def test_empty_tree_is_the_root_alone() -> None:
    tree = SessionTree()
    assert len(tree) == 1
    assert ROOT_NAME in tree
    assert tree.root == Node(ROOT_NAME, NodeKind.SESSION)
    assert list(tree) == [(0, tree.root)]
    assert tree.parent_of(ROOT_NAME) is None
    assert tree.path(ROOT_NAME) == (ROOT_NAME,)
    assert outline(tree) == "Session tree (1 node):"


def test_reading_helpers(deep: SessionTree) -> None:
    assert len(deep) == 1 + 3 * (1 + 2 * (1 + 3 * 2))
    block = deep.get("b112")
    assert block.kind is NodeKind.BLOCK
    assert deep.parent_of("b112") is deep.get("r11")
    assert [child.name for child in deep.children("b112")] == ["b112.res"]
    assert deep.path("b112.res") == (ROOT_NAME, "u1", "r11", "b112", "b112.res")
    assert "b112" in deep
    assert "nope" not in deep
    for lookup in (deep.get, deep.parent_of, deep.children, deep.path, deep.is_aborted):
        with pytest.raises(KeyError, match="no node named 'nope'"):
            lookup("nope")


def test_iteration_is_pre_order_with_depths() -> None:
    tree = write(
        SessionTree(),
        NodeSpec("user-input", name="a"),
        NodeSpec("response", name="a1", parent="a"),
        NodeSpec("block", name="a1x", parent="a1"),
        NodeSpec("response", name="a2", parent="a"),
        NodeSpec("user-input", name="b"),
        NodeSpec("event", name="b1", parent="b"),
    )
    assert [(depth, node.name) for depth, node in tree] == [
        (0, ROOT_NAME),
        (1, "a"),
        (2, "a1"),
        (3, "a1x"),
        (2, "a2"),
        (1, "b"),
        (2, "b1"),
    ]


def test_nodes_and_trees_are_frozen(deep: SessionTree) -> None:
    node = deep.get("b000")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        node.body = "changed"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        deep._root = node  # type: ignore[misc]
    with pytest.raises(TypeError):
        node.attrs["status"] = "ok"  # type: ignore[index]


def test_node_repr_counts_children_instead_of_spelling_the_subtree(deep: SessionTree) -> None:
    assert repr(deep.get("r00")) == (
        "Node(name='r00', kind='response', body='', attrs={}, children=<3 nodes>)"
    )
    assert repr(deep) == "<SessionTree of 46 nodes>"


def test_spec_takes_kind_text_and_refuses_unknown_kinds() -> None:
    assert NodeSpec("block-result").kind is NodeKind.BLOCK_RESULT
    with pytest.raises(ValueError, match="'blok'"):
        NodeSpec("blok")


# -- path copying ------------------------------------------------------------------------


def test_write_copies_only_its_path(deep: SessionTree) -> None:
    before = snapshot(deep)
    new, name = deep.add(NodeSpec(NodeKind.EVENT, "retry", parent="b112.res"))
    assert name == "event-1"
    old_node, new_node = deep.root, new.root
    for step in new.path(name)[1:]:
        on_path = new.get(step)
        assert old_node is not new_node
        assert len(new_node.children) == len(old_node.children) + (step == name)
        for position, old_child in enumerate(old_node.children):
            new_child = new_node.children[position]
            if new_child.name == step:
                continue
            assert new_child is old_child
        if step == name:
            assert new_node.children[-1] is on_path
            break
        old_node = next(child for child in old_node.children if child.name == step)
        new_node = on_path
    assert snapshot(deep) == before
    assert name not in deep
    assert len(new) == len(deep) + 1
    assert new.get(name) == Node(name, NodeKind.EVENT, "retry")


def test_old_versions_stay_usable_for_new_writes(deep: SessionTree) -> None:
    first, _ = deep.add(NodeSpec(NodeKind.ERROR, "attempt 1 failed", name="err", parent="u2"))
    retry, _ = deep.add(NodeSpec(NodeKind.RESPONSE, "attempt 2", name="err", parent="u2"))
    assert first.get("err").kind is NodeKind.ERROR
    assert retry.get("err").kind is NodeKind.RESPONSE
    assert "err" not in deep
    assert first.get("u0") is retry.get("u0") is deep.get("u0")


# -- names ---------------------------------------------------------------------------------


def test_auto_names_count_per_kind_and_skip_taken_names() -> None:
    tree, names = SessionTree().add_batch(
        [
            NodeSpec("event"),
            NodeSpec("block"),
            NodeSpec("event"),
            NodeSpec("event", name="event-4"),
            NodeSpec("event"),
            NodeSpec("event"),
        ]
    )
    assert names == ("event-1", "block-1", "event-2", "event-4", "event-3", "event-5")
    tree, name = tree.add(NodeSpec("block", name="block-2"))
    tree, name = tree.add(NodeSpec("block"))
    assert name == "block-3"


def test_auto_names_skip_names_requested_later_in_the_batch() -> None:
    _, names = SessionTree().add_batch([NodeSpec("plan"), NodeSpec("plan", name="plan-1")])
    assert names == ("plan-2", "plan-1")


def test_explicit_names_are_kept() -> None:
    tree, name = SessionTree().add(NodeSpec("plan", "do it", name="fix:parser_v2.1"))
    assert name == "fix:parser_v2.1"
    assert tree.get(name).body == "do it"


@pytest.mark.parametrize("bad", ["", "has space", "ünïcode", "a/b", "x" * (MAX_NAME_LENGTH + 1)])
def test_invalid_names_are_refused(bad: str) -> None:
    error = rejection(SessionTree(), NodeSpec("plan", name=bad))
    assert error.reasons == (
        f"#1 plan {bad!r}: {bad!r} is not a valid node name (use 1 to 64 of the characters"
        " A-Z a-z 0-9 _ . : -)",
    )


def test_longest_name_is_accepted() -> None:
    name = "n" * MAX_NAME_LENGTH
    tree, written = SessionTree().add(NodeSpec("plan", name=name))
    assert written in tree


def test_duplicate_name_in_tree(deep: SessionTree) -> None:
    error = rejection(deep, NodeSpec("plan", name="u1"))
    assert error.reasons == ("#1 plan 'u1': the name 'u1' is already taken in the session tree",)
    error = rejection(deep, NodeSpec("plan", name=ROOT_NAME))
    assert error.reasons == (
        "#1 plan 'session': the name 'session' is already taken in the session tree",
    )


def test_duplicate_name_within_batch() -> None:
    error = rejection(
        SessionTree(), NodeSpec("plan", name="p"), NodeSpec("event"), NodeSpec("goal", name="p")
    )
    assert error.reasons == ("#3 goal 'p': the name 'p' is already used by #1",)


# -- parents -------------------------------------------------------------------------------


def test_parent_defined_earlier_in_the_same_batch() -> None:
    tree, names = SessionTree().add_batch(
        [
            NodeSpec("response", name="r"),
            NodeSpec("block", parent="r"),
            NodeSpec("block-result", parent="block-1", attrs={"status": "ok"}),
        ]
    )
    assert names == ("r", "block-1", "block-result-1")
    assert tree.path("block-result-1") == (ROOT_NAME, "r", "block-1", "block-result-1")


def test_unknown_parent(deep: SessionTree) -> None:
    error = rejection(deep, NodeSpec("event", parent="ghost"))
    assert error.reasons == ("#1 event (auto-named 'event-1'): the parent 'ghost' does not exist",)


def test_parent_written_later_in_the_batch() -> None:
    error = rejection(
        SessionTree(), NodeSpec("block", name="b", parent="r"), NodeSpec("response", name="r")
    )
    assert error.reasons == ("#1 block 'b': the parent 'r' is only written later in this batch",)


def test_node_cannot_be_its_own_parent() -> None:
    error = rejection(SessionTree(), NodeSpec("plan", name="p", parent="p"))
    assert error.reasons == ("#1 plan 'p': a node cannot be its own parent",)


def test_only_the_root_is_a_session_node() -> None:
    error = rejection(SessionTree(), NodeSpec("session", name="s2"))
    assert error.reasons == ("#1 session 's2': only the root may be a session node",)


def test_block_result_must_hang_under_a_block(deep: SessionTree) -> None:
    error = rejection(deep, NodeSpec("block-result", parent="r00"))
    assert error.reasons == (
        "#1 block-result (auto-named 'block-result-1'): a block-result must hang under a"
        " block, and 'r00' is a response",
    )
    tree, _ = deep.add(NodeSpec("block-result", parent="b000"))
    assert len(deep.children("b000")) == 1
    assert len(tree.children("b000")) == 2


# -- batches -------------------------------------------------------------------------------


def test_batch_is_all_or_nothing(deep: SessionTree) -> None:
    error = rejection(
        deep,
        NodeSpec("response", name="r9", parent="u0"),
        NodeSpec("block", name="b9", parent="r9"),
        NodeSpec("block", name="b000", parent="r9"),
        NodeSpec("block-result", parent="b9"),
    )
    assert error.reasons == (
        "#3 block 'b000': the name 'b000' is already taken in the session tree",
    )
    assert "r9" not in deep
    assert "b9" not in deep


def test_a_rejected_batch_does_not_advance_auto_names() -> None:
    tree = SessionTree()
    rejection(tree, NodeSpec("event"), NodeSpec("event", parent="ghost"))
    _, names = tree.add_batch([NodeSpec("event"), NodeSpec("event")])
    assert names == ("event-1", "event-2")


def test_every_fault_of_a_batch_is_reported() -> None:
    error = rejection(
        SessionTree(),
        NodeSpec("block", name="ok"),
        NodeSpec("event", name="bad name", parent="ghost"),
        NodeSpec("abort", parent="ok"),
    )
    assert error.batch_size == 3
    assert error.reasons == (
        "#2 event 'bad name': 'bad name' is not a valid node name (use 1 to 64 of the characters"
        " A-Z a-z 0-9 _ . : -)",
        "#2 event 'bad name': the parent 'ghost' does not exist",
        "#3 abort (auto-named 'abort-1'): an abort must hang under a plan, and 'ok' is a block",
    )
    assert str(error) == (
        "The session tree discarded the whole batch (3 nodes); nothing of it was written. "
        + " ".join(f"{reason}." for reason in error.reasons)
    )


def test_rejection_text_for_a_single_node() -> None:
    error = rejection(SessionTree(), NodeSpec("event", parent="ghost"))
    assert str(error) == (
        "The session tree discarded the whole batch (1 node); nothing of it was written."
        " #1 event (auto-named 'event-1'): the parent 'ghost' does not exist."
    )
    assert "\n" not in str(error)


def test_empty_batch_returns_the_same_version(deep: SessionTree) -> None:
    assert deep.add_batch([]) == (deep, ())


# -- plans ---------------------------------------------------------------------------------


@pytest.fixture
def planned() -> SessionTree:
    return write(
        SessionTree(),
        NodeSpec("user-input", "go", name="u"),
        NodeSpec("plan", "first idea", name="p1", parent="u"),
        NodeSpec("summary", "step", parent="p1"),
    )


def test_abort_plan_records_who_and_why(planned: SessionTree) -> None:
    tree, name = planned.abort_plan("p1", who="model", why="the test showed a better way")
    assert name == "abort-1"
    abort = tree.get(name)
    assert abort.kind is NodeKind.ABORT
    assert dict(abort.attrs) == {"who": "model", "why": "the test showed a better way"}
    assert tree.parent_of(name) is tree.get("p1")
    assert tree.is_aborted("p1")
    assert not planned.is_aborted("p1")
    assert tree.get("p1").body == planned.get("p1").body == "first idea"


def test_revising_a_plan_is_abort_then_new_plan(planned: SessionTree) -> None:
    tree, _ = planned.abort_plan("p1", "user", "changed my mind")
    tree, _ = tree.add(NodeSpec("plan", "second idea", name="p2", parent="u"))
    assert not tree.is_aborted("p2")
    assert [child.name for child in tree.children("u")] == ["p1", "p2"]


def test_second_abort_of_a_plan_is_refused(planned: SessionTree) -> None:
    tree, _ = planned.abort_plan("p1", "model", "first")
    error = rejection(tree, NodeSpec("abort", parent="p1"))
    assert error.reasons == ("#1 abort (auto-named 'abort-2'): the plan 'p1' is already aborted",)
    error = rejection(planned, NodeSpec("abort", parent="p1"), NodeSpec("abort", parent="p1"))
    assert error.reasons == ("#2 abort (auto-named 'abort-2'): the plan 'p1' is already aborted",)


def test_aborted_plan_takes_no_children(planned: SessionTree) -> None:
    tree, _ = planned.abort_plan("p1", "model", "dead end")
    error = rejection(tree, NodeSpec("summary", "more", parent="p1"))
    assert error.reasons == (
        "#1 summary (auto-named 'summary-2'): the plan 'p1' is aborted and takes no new children",
    )
    error = rejection(planned, NodeSpec("abort", parent="p1"), NodeSpec("plan", parent="p1"))
    assert error.reasons == (
        "#2 plan (auto-named 'plan-1'): the plan 'p1' is aborted and takes no new children",
    )


def test_abort_must_hang_under_a_plan(planned: SessionTree) -> None:
    error = rejection(planned, NodeSpec("abort", parent="u"))
    assert error.reasons == (
        "#1 abort (auto-named 'abort-1'): an abort must hang under a plan, and 'u' is a user-input",
    )
    with pytest.raises(TreeWriteRejected):
        planned.abort_plan("u", "model", "not a plan")
    assert not planned.is_aborted("u")


# -- outline -------------------------------------------------------------------------------


def test_outline_of_a_small_session() -> None:
    tree = write(
        SessionTree(),
        NodeSpec("user-input", "Fix the parser\nIt fails on heredocs", name="round-1"),
        NodeSpec("event", "generator spec", parent="round-1"),
        NodeSpec("plan", "1. read the parser 2. write a test", name="plan-a", parent="round-1"),
    )
    tree, _ = tree.abort_plan("plan-a", who="model", why="wrong file")
    tree = write(
        tree,
        NodeSpec("plan", "Read _parser.py first", name="plan-b", parent="round-1"),
        NodeSpec("response", "I will read the file.", name="r1", parent="round-1"),
        NodeSpec("summary", "\n  Read the parser; it has a bug  \nmore", parent="r1"),
        NodeSpec("block", "cat _parser.py", name="b1", parent="r1", attrs={"kind": "shell"}),
        NodeSpec("block-result", "...", parent="b1", attrs={"status": "ok"}),
        NodeSpec("event", "timing", parent="block-result-1"),
        NodeSpec("block", "rm -rf /", name="b2", parent="r1", attrs={"status": "refused"}),
        NodeSpec("error", "x" * 80, parent="round-1"),
        NodeSpec("feedback", "Round 1 results\n...", parent="round-1"),
        NodeSpec("goal", "Parser handles heredocs", attrs={"status": "met"}),
        NodeSpec("goal", "   "),
    )
    assert outline(tree) == "\n".join(
        [
            "Session tree (16 nodes):",
            "- user-input round-1 — Fix the parser",
            "  - plan plan-a [aborted] — 1. read the parser 2. write a test",
            "    - abort abort-1",
            "  - plan plan-b — Read _parser.py first",
            "  - response r1",
            "    - summary summary-1 — Read the parser; it has a bug",
            "    - block b1 [ok]",
            "    - block b2 [refused]",
            "  - error error-1 — " + "x" * 59 + "…",
            "  - feedback feedback-1 — Round 1 results",
            "- goal goal-1 [met] — Parser handles heredocs",
            "- goal goal-2",
        ]
    )


def test_outline_block_status_comes_from_its_last_result() -> None:
    tree = write(
        SessionTree(),
        NodeSpec("block", name="b", attrs={"status": "pending"}),
        NodeSpec("block-result", parent="b", attrs={"status": "failed"}),
        NodeSpec("block-result", parent="b", attrs={"status": "ok"}),
        NodeSpec("block-result", parent="b"),
        NodeSpec("block", name="c", attrs={"status": "pending"}),
    )
    assert outline(tree).splitlines()[1:] == ["- block b [ok]", "- block c [pending]"]


def test_outline_title_of_exactly_sixty_characters_is_not_cut() -> None:
    tree = write(SessionTree(), NodeSpec("plan", "y" * 60), NodeSpec("plan", "y" * 61))
    assert outline(tree).splitlines()[1:] == [
        "- plan plan-1 — " + "y" * 60,
        "- plan plan-2 — " + "y" * 59 + "…",
    ]


def test_outline_caps_a_long_session() -> None:
    tree = write(SessionTree(), *(NodeSpec("user-input") for _ in range(300)))
    lines = outline(tree).splitlines()
    assert lines[0] == "Session tree (301 nodes):"
    assert lines[1:41] == [f"- user-input user-input-{n}" for n in range(1, 41)]
    assert lines[41] == "… (110 nodes omitted) …"
    assert lines[42:] == [f"- user-input user-input-{n}" for n in range(151, 301)]


def test_outline_cap_counts_listed_lines_only() -> None:
    tree = write(
        SessionTree(),
        *(NodeSpec("user-input") for _ in range(200)),
        *(NodeSpec("event", parent="user-input-1") for _ in range(50)),
    )
    lines = outline(tree).splitlines()
    assert lines[0] == "Session tree (251 nodes):"
    assert len(lines) == 201
    assert not any("omitted" in line for line in lines)


def test_outline_of_an_old_version_is_unchanged(planned: SessionTree) -> None:
    before = outline(planned)
    tree, _ = planned.abort_plan("p1", "model", "no")
    assert outline(planned) == before
    assert outline(tree) != before
