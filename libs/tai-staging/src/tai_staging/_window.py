"""Fitting the staged context into the model's window: which levels to lower, in order.

The budget of :mod:`._levels` sizes the context units by the focus; the model's window
(``ContextRequest.max_tokens``) is a hard ceiling over everything. When the parts exceed
it, levels are lowered in a fixed order until they fit: first the context units — ``-doc``
units, then the others from the lowest priority up, each to invisible — and then the focus
units, one level at a time (full documentation, unit documentation, short documentation),
always the one whose current text is largest (ties by path). Only sizes and paths decide,
so the same inputs give the same reductions, and the prompt prefix stays stable across
goal loops. Every reduction is named in the outline with how to fetch what was left out;
when even every focus unit at its shortest does not fit, nothing is sent and the caller
says so. A language names its units and its fetch block (:class:`Language`); what it
stages is reached through :class:`Costs`.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from typing import Protocol

import attrs

from tai_core.context import TIER_HINTS, ContextPart, ContextTooLarge
from tai_core.models import estimate_tokens
from tai_staging import _levels as levels


class Unit(Protocol):
    """A staged unit (a Go package, a Python module): known by its path."""

    @property
    def path(self) -> str: ...


class Costs(Protocol):
    """What one collection tells the window rule: the tokens of a unit's parts at a level
    (focus units at focus levels, context units and ``-doc`` paths at visibility levels),
    and a chance to start computing the lower focus levels in one batch."""

    def focus_cost(self, unit: Unit) -> Callable[[int], int]: ...

    def cost(self, unit: Unit) -> Callable[[int], int]: ...

    def doc_cost(self, path: str) -> Callable[[int], int]: ...

    def prefetch_lower(self, focus: Sequence[Unit]) -> None: ...


@attrs.frozen
class Language:
    """How the window rule speaks of one language's context: ``key`` prefixes the part's
    key (``go``), ``name`` is the language (``Go``), ``unit`` what it stages (``package``),
    ``focus_names`` the names of the focus levels, ``fetch_hint`` the line that says how to
    fetch what was left out, ``narrow`` how to narrow the focus (for the error)."""

    key: str
    name: str
    unit: str
    focus_names: tuple[str, ...]
    fetch_hint: str
    narrow: str


@attrs.define
class Plan:
    """The levels one collection shows: focus units at focus levels, context units at
    visibility levels, ``-doc`` units shown or not; and the tokens of the parts that are
    always there."""

    focus: Sequence[Unit]
    others: Sequence[Unit]
    focus_levels: dict[str, int]
    levels: dict[str, int]
    docs: dict[str, int]
    fixed: int

    def tokens(self, context: Costs) -> int:
        """The tokens of every part at the planned levels."""
        return (
            self.fixed
            + sum(context.focus_cost(p)(self.focus_levels[p.path]) for p in self.focus)
            + sum(context.cost(p)(self.levels[p.path]) for p in self.others)
            + sum(context.doc_cost(path)(level) for path, level in self.docs.items())
        )


@attrs.define
class Item:
    """A unit whose level may be lowered: ``levels`` lists its levels from the current
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


def _note_lines(plan: Plan, usual: Plan, language: Language) -> list[str]:
    """One line per unit ``plan`` shows lower than ``usual`` (sorted by path)."""
    unit, names = language.unit, language.focus_names
    lines = {}
    for path, level in plan.focus_levels.items():
        if level != usual.focus_levels[path]:
            before, after = names[usual.focus_levels[path]], names[level]
            lines[path] = f"- focus {unit} {path}: {after} (instead of {before})\n"
    for path, level in plan.levels.items():
        if level < usual.levels[path]:
            before, after = levels.LEVEL_NAMES[usual.levels[path]], levels.LEVEL_NAMES[level]
            lines[path] = f"- context {unit} {path}: {after} (instead of {before})\n"
    for path, level in plan.docs.items():
        if level < usual.docs[path]:
            lines[path] = f"- documentation of {unit} {path}: left out\n"
    return [lines[path] for path in sorted(lines)]


def reductions_part(plan: Plan, usual: Plan, language: Language) -> ContextPart | None:
    """The part that names every unit ``plan`` shows lower than ``usual`` would, and how
    to fetch what is missing; ``None`` when nothing is lower."""
    lines = _note_lines(plan, usual, language)
    if not lines:
        return None
    text = (
        "To fit the model's window, this context shows less than it would:\n"
        + "".join(lines)
        + language.fetch_hint
    )
    notice = (
        f"the {language.name} context was lowered to fit the model's window: {len(lines)} "
        f"{language.unit}(s) shown at a lower level (named to the model)"
    )
    return ContextPart(TIER_HINTS, f"{language.key} window reductions", text, notice=notice)


def fit(
    context: Costs, plan: Plan, usual: Plan, limit: int, language: Language
) -> ContextPart | None:
    """Lower ``plan``'s levels until its parts fit ``limit`` tokens (see the module
    docstring); the part that names what it shows below ``usual`` (the plan without a
    limit). Raises :class:`ContextTooLarge` when even the least does not fit."""
    start = attrs.evolve(plan, focus_levels=dict(plan.focus_levels), levels=dict(plan.levels),
                         docs=dict(plan.docs))  # fmt: skip
    reserve = 0
    previous = None
    while True:  # the note grows with the reductions: fit again with room for it
        note = reductions_part(plan, usual, language)
        cost = estimate_tokens(note.text) if note else 0
        total = plan.tokens(context) + cost
        current = (plan.focus_levels, plan.levels, plan.docs)
        if total <= limit or current == previous:  # fits, or nothing more to lower
            break
        if previous is None:  # the lower levels of the focus, in one batch
            context.prefetch_lower(plan.focus)
        previous = current
        reserve = max(cost, reserve + 1)
        _lower(context, plan, start, limit - reserve)
    if total > limit:
        raise ContextTooLarge(
            f"the {language.name} context needs about {total} tokens even with every focus "
            f"{language.unit} at its short documentation, more than the {limit} the model's "
            f"window leaves for it: narrow the focus ({language.narrow}) or use a model with a "
            "larger window (context_tokens)"
        )
    return note


def _lower(context: Costs, plan: Plan, start: Plan, limit: int) -> None:
    """Set ``plan``'s levels to ``start``'s lowered by :func:`reduce` to ``limit``."""
    focus_items = [
        Item(p.path, list(range(start.focus_levels[p.path], levels.FOCUS_SHORT + 1)),
             context.focus_cost(p))
        for p in plan.focus
    ]  # fmt: skip
    context_items = [
        Item(p.path, [start.levels[p.path], levels.INVISIBLE], context.cost(p))
        for p in plan.others if start.levels[p.path] != levels.INVISIBLE
    ]  # fmt: skip
    doc_items = [
        Item(f"~doc {path}", [levels.DOC, levels.INVISIBLE], context.doc_cost(path))
        for path, level in start.docs.items() if level
    ]  # fmt: skip
    items = (*focus_items, *context_items, *doc_items)
    total = plan.fixed + sum(item.cost(item.level) for item in items)
    reduce([*context_items, *doc_items], focus_items, total, limit)
    chosen = {item.key: item.level for item in items}
    plan.focus_levels = {p.path: chosen[p.path] for p in plan.focus}
    plan.levels = {p.path: chosen.get(p.path, start.levels[p.path]) for p in plan.others}
    plan.docs = {path: chosen.get(f"~doc {path}", level) for path, level in start.docs.items()}
