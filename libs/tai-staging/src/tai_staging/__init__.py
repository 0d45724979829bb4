"""The staged-context rules every language's context provider shares.

*Why a library of its own.* Go and Python stage a project the same way: the focus enters
as an outline, the code it imports as context at one of five visibility levels (invisible,
short documentation, documentation, code, all) within a token budget derived from the
focus alone, and everything within the model's window, lowered in a fixed order when it
does not fit. What differs is how a language reads its code and renders its outline; what
is decided from sizes and paths is the same rule, kept here once so the two providers
cannot drift apart (one language lowering its focus before its context while the other
does the opposite would make the prompt's behaviour depend on the project's language).

*Invariant: determinism.* Every decision here is a function of token estimates
(:func:`tai_core.models.estimate_tokens`), priorities and paths — never of discovery order
or timing — so the same inputs give the same levels and reductions, and the prompt prefix
stays byte-identical across goal loops.

Modules: :mod:`._levels` (the levels, the budget, the allocation of levels to context
units), :mod:`._window` (fitting the window, and the part that names the reductions),
:mod:`._parts` (the order of parts, import distances, git change counts, marked blocks),
:mod:`._stage` (one collection's flow: costs, the plan, the parts laid out).
"""

from __future__ import annotations

from tai_staging._levels import (
    ALL,
    BUDGET_UNIT,
    CODE,
    DOC,
    FOCUS_FULL,
    FOCUS_NAMES,
    FOCUS_PACKAGE,
    FOCUS_SHORT,
    FOCUS_SOURCE,
    INVISIBLE,
    LEVEL_NAMES,
    SHORT_DOC,
    Candidate,
    allocate,
    context_budget,
)
from tai_staging._parts import (
    UNREACHED,
    distances,
    file_block,
    git_counts,
    hint_part,
    sort_key,
    unit_block,
)
from tai_staging._stage import Staging
from tai_staging._window import Costs, Item, Language, Plan, Unit, fit, reduce, reductions_part

__all__ = [
    "ALL",
    "BUDGET_UNIT",
    "CODE",
    "DOC",
    "FOCUS_FULL",
    "FOCUS_NAMES",
    "FOCUS_PACKAGE",
    "FOCUS_SHORT",
    "FOCUS_SOURCE",
    "INVISIBLE",
    "LEVEL_NAMES",
    "SHORT_DOC",
    "UNREACHED",
    "Candidate",
    "Costs",
    "Item",
    "Language",
    "Plan",
    "Staging",
    "Unit",
    "allocate",
    "context_budget",
    "distances",
    "file_block",
    "fit",
    "git_counts",
    "hint_part",
    "reduce",
    "reductions_part",
    "sort_key",
    "unit_block",
]
