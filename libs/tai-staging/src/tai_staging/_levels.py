"""Visibility levels and the deterministic token budget of the context units.

A unit is what a language stages as one piece: a Go package, a Python module. Token counts
are the core's offline estimate (:func:`tai_core.models.estimate_tokens`): the same text
always costs the same, so the same inputs always get the same levels. The budget derives
from the focus outline alone (:func:`context_budget`), rounded to 32K steps, so an edit of
a focus file rarely moves it, and context units keep their levels. When the model's window
is smaller than what this gives, :mod:`._window` lowers levels further.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

#: The visibility levels of a context unit, lowest first.
INVISIBLE, SHORT_DOC, DOC, CODE, ALL = range(5)
LEVEL_NAMES = ("left out", "short documentation", "documentation", "source", "source and files")
#: One step of the context budget.
BUDGET_UNIT = 32768


#: The levels of a focus unit, highest first: its whole source (``-all-src``), its full
#: documentation, its unit-level documentation (a Go package's doc comment and exported
#: names; a Python module's docstring and signatures), its short documentation.
FOCUS_SOURCE, FOCUS_FULL, FOCUS_PACKAGE, FOCUS_SHORT = range(4)
FOCUS_NAMES = ("source", "full documentation", "package documentation", "short documentation")


def context_budget(focus_tokens: int) -> int:
    """Tokens the context units may use: a quarter of the focus documentation's,
    rounded to the nearest multiple of 32768, at least 32768."""
    return max(BUDGET_UNIT, ((focus_tokens // 4 + BUDGET_UNIT // 2) // BUDGET_UNIT) * BUDGET_UNIT)


@attrs.frozen
class Candidate:
    """A non-focus unit competing for the budget, in priority order: its minimum
    level, whether that minimum is guaranteed (``-ctx`` units), and its cost at a
    level (called lazily, only for levels the allocation considers)."""

    key: str
    minimum: int
    guaranteed: bool
    cost: Callable[[int], int] = attrs.field(eq=False)


def allocate(candidates: Sequence[Candidate], budget: int) -> dict[str, int]:
    """The level of each candidate.

    In priority order each gets its minimum when it fits (guaranteed ones always, even
    over the budget); a unit that does not fit stays invisible without blocking the
    next. What is left is water-filled: the first unit whose next level fits is raised
    by one and the scan restarts; a raise into a documentation level waits until the
    unit before it has that level.
    """
    levels = dict.fromkeys((c.key for c in candidates), INVISIBLE)
    remaining = budget
    for candidate in candidates:
        if candidate.minimum == INVISIBLE:
            continue
        cost = candidate.cost(candidate.minimum)
        if candidate.guaranteed or cost <= remaining:
            levels[candidate.key] = candidate.minimum
            remaining -= cost
    while remaining > 0:
        for index, candidate in enumerate(candidates):
            current = levels[candidate.key]
            if current == ALL:
                continue
            target = current + 1
            before = levels[candidates[index - 1].key] if index else ALL
            if target in (SHORT_DOC, DOC) and before < target:
                continue
            delta = candidate.cost(target) - (candidate.cost(current) if current else 0)
            if delta <= remaining:
                levels[candidate.key] = target
                remaining -= delta
                break
        else:
            break
    return levels
