"""Fitting the staged context into the model's window: which levels to lower, in order.

The budget of :mod:`._budget` sizes the context packages by the focus; the model's window
(``ContextRequest.max_tokens``) is a hard ceiling over everything. When the parts exceed
it, levels are lowered in a fixed order until they fit: first the context packages —
``-doc`` packages, then the others from the lowest priority up, each to invisible — and
then the focus packages, one level at a time (full documentation, package documentation,
short documentation), always the one whose current text is largest (ties by import
path). Only sizes and paths decide, so the same inputs give the same reductions, and the
prompt prefix stays stable across goal loops. Every reduction is named in the outline
with how to fetch what was left out; when even every focus package at its shortest does
not fit, nothing is sent and the caller says so.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import attrs

from tai_core.context import TIER_HINTS, ContextPart, ContextTooLarge
from tai_core.models import estimate_tokens
from tai_go import _budget as budget

if TYPE_CHECKING:
    from tai_go._collect import _Context
    from tai_go._load import Package


@attrs.define
class Plan:
    """The levels one collection shows: focus packages at focus levels, context packages
    at visibility levels, ``-doc`` packages shown or not; and the tokens of the parts
    that are always there."""

    focus: list[Package]
    others: list[Package]
    focus_levels: dict[str, int]
    levels: dict[str, int]
    docs: dict[str, int]
    fixed: int

    def tokens(self, context: _Context) -> int:
        """The tokens of every part at the planned levels."""
        return (
            self.fixed
            + sum(context.focus_cost(p)(self.focus_levels[p.path]) for p in self.focus)
            + sum(context.cost(p)(self.levels[p.path]) for p in self.others)
            + sum(context.doc_cost(path)(level) for path, level in self.docs.items())
        )


@attrs.define
class Item:
    """A package whose level may be lowered: ``levels`` lists its levels from the current
    one down to the lowest allowed (``levels[0]`` is where it stands), ``cost`` gives
    the tokens of its parts at a level."""

    key: str
    levels: list[int]
    cost: Callable[[int], int] = attrs.field(eq=False)

    @property
    def level(self) -> int:
        return self.levels[0]

    def lower(self) -> int:
        """Step one level down; the change in tokens."""
        before = self.cost(self.levels.pop(0))
        return self.cost(self.levels[0]) - before


def reduce(context: Sequence[Item], focus: Sequence[Item], total: int, limit: int) -> None:
    """Lower ``context`` items (the last first, each to its lowest level), then ``focus``
    items (largest first, ties by key, one level at a time) until ``total`` is at most
    ``limit`` or nothing is left to lower (what was lowered is read from the items)."""
    for item in reversed(context):
        if total <= limit:
            return
        while len(item.levels) > 1:
            total += item.lower()
    heap = [(-item.cost(item.level), item.key, i) for i, item in enumerate(focus)]
    heap = [entry for entry in heap if len(focus[entry[2]].levels) > 1]
    heapq.heapify(heap)
    while total > limit and heap:
        _, key, index = heapq.heappop(heap)
        item = focus[index]
        total += item.lower()
        if len(item.levels) > 1:
            heapq.heappush(heap, (-item.cost(item.level), key, index))


def _note_lines(plan: Plan, usual: Plan) -> list[str]:
    """One line per package ``plan`` shows lower than ``usual`` (sorted by path)."""
    lines = {}
    for path, level in plan.focus_levels.items():
        if level != usual.focus_levels[path]:
            before, after = budget.FOCUS_NAMES[usual.focus_levels[path]], budget.FOCUS_NAMES[level]
            lines[path] = f"- focus package {path}: {after} (instead of {before})\n"
    for path, level in plan.levels.items():
        if level < usual.levels[path]:
            before, after = budget.LEVEL_NAMES[usual.levels[path]], budget.LEVEL_NAMES[level]
            lines[path] = f"- context package {path}: {after} (instead of {before})\n"
    for path, level in plan.docs.items():
        if level < usual.docs[path]:
            lines[path] = f"- documentation of package {path}: left out\n"
    return [lines[path] for path in sorted(lines)]


def reductions_part(plan: Plan, usual: Plan) -> ContextPart | None:
    """The part that names every package ``plan`` shows lower than ``usual`` would, and
    how to fetch what is missing; ``None`` when nothing is lower."""
    lines = _note_lines(plan, usual)
    if not lines:
        return None
    text = (
        "To fit the model's window, this context shows less than it would:\n"
        + "".join(lines)
        + "A go-src block naming a package's import path returns its full documentation; "
        "naming a declaration returns its source.\n"
    )
    notice = (
        f"the Go context was lowered to fit the model's window: {len(lines)} package(s) "
        "shown at a lower level (named to the model)"
    )
    return ContextPart(TIER_HINTS, "go window reductions", text, notice=notice)


def fit(context: _Context, plan: Plan, usual: Plan, limit: int) -> ContextPart | None:
    """Lower ``plan``'s levels until its parts fit ``limit`` tokens (see the module
    docstring); the part that names what it shows below ``usual`` (the plan without a
    limit). Raises :class:`ContextTooLarge` when even the least does not fit."""
    start = attrs.evolve(plan, focus_levels=dict(plan.focus_levels), levels=dict(plan.levels),
                         docs=dict(plan.docs))  # fmt: skip
    reserve = 0
    previous = None
    while True:  # the note grows with the reductions: fit again with room for it
        note = reductions_part(plan, usual)
        cost = estimate_tokens(note.text) if note else 0
        total = plan.tokens(context) + cost
        levels = (plan.focus_levels, plan.levels, plan.docs)
        if total <= limit or levels == previous:  # fits, or nothing more to lower
            break
        if previous is None:  # the lower levels of the focus, in one batch
            context.docs.prefetch(
                [(p.path, *budget.FOCUS_FLAGS[level]) for p in plan.focus
                 for level in (budget.FOCUS_PACKAGE, budget.FOCUS_SHORT)]
            )  # fmt: skip
        previous = levels
        reserve = max(cost, reserve + 1)
        _lower(context, plan, start, limit - reserve)
    if total > limit:
        raise ContextTooLarge(
            f"the Go context needs about {total} tokens even with every focus package "
            f"at its short documentation, more than the {limit} the model's window leaves "
            "for it: narrow the focus (-pkg PATTERN, or go.load_patterns in tai.toml) or use "
            "a model with a larger window (context_tokens)"
        )
    return note


def _lower(context: _Context, plan: Plan, start: Plan, limit: int) -> None:
    """Set ``plan``'s levels to ``start``'s lowered by :func:`reduce` to ``limit``."""
    focus_items = [
        Item(p.path, list(range(start.focus_levels[p.path], budget.FOCUS_SHORT + 1)),
             context.focus_cost(p))
        for p in plan.focus
    ]  # fmt: skip
    context_items = [
        Item(p.path, [start.levels[p.path], budget.INVISIBLE], context.cost(p))
        for p in plan.others if start.levels[p.path] != budget.INVISIBLE
    ]  # fmt: skip
    doc_items = [
        Item(f"~doc {path}", [budget.DOC, budget.INVISIBLE], context.doc_cost(path))
        for path, level in start.docs.items() if level
    ]  # fmt: skip
    items = (*focus_items, *context_items, *doc_items)
    total = plan.fixed + sum(item.cost(item.level) for item in items)
    reduce([*context_items, *doc_items], focus_items, total, limit)
    chosen = {item.key: item.level for item in items}
    plan.focus_levels = {p.path: chosen[p.path] for p in plan.focus}
    plan.levels = {p.path: chosen.get(p.path, start.levels[p.path]) for p in plan.others}
    plan.docs = {path: chosen.get(f"~doc {path}", level) for path, level in start.docs.items()}
