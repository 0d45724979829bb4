"""One collection's staging: token costs computed once, the levels planned, the parts laid
out — the flow every language's collection shares.

A language's collection subclasses :class:`Staging` and says how a unit renders at a level
(:meth:`Staging.focus_parts`, :meth:`Staging.parts_at`, :meth:`Staging.doc_parts`);
:meth:`Staging.stage` does the rest: the focus at its top level, the context units
allocated within the budget the focus sets (:func:`~tai_staging._levels.context_budget`),
the ``-doc`` units in order while they fit, and — under a window limit — the plan lowered
by :func:`~tai_staging._window.fit`, whose note joins the parts. Every part is returned
sorted by ``(tier, key)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from tai_core.context import ContextPart
from tai_core.models import estimate_tokens
from tai_staging import _levels as levels
from tai_staging._window import Language, Plan, Unit, fit


class Staging:
    """The costs and the plan of one collection (see the module docstring)."""

    def __init__(self) -> None:
        self.costs: dict[tuple[str, int], int] = {}
        #: The parts each cost was computed from, laid out again without rendering twice.
        self.rendered: dict[tuple[str, int], list[ContextPart]] = {}

    def focus_parts(self, unit: Unit, level: int) -> list[ContextPart]:
        """A focus unit's parts at a focus level."""
        raise NotImplementedError

    def parts_at(self, unit: Unit, level: int) -> list[ContextPart]:
        """A context unit's parts at a visibility level."""
        raise NotImplementedError

    def doc_parts(self, path: str, level: int) -> list[ContextPart]:
        """A ``-doc`` unit's parts at a visibility level (``INVISIBLE`` or ``DOC``)."""
        raise NotImplementedError

    def prefetch_lower(self, focus: Sequence[Unit]) -> None:
        """Start computing the focus units' lower levels, when that takes time."""

    def memo(self, key: str, parts: Callable[[int], list[ContextPart]]) -> Callable[[int], int]:
        """The tokens of ``parts`` at a level, computed once per ``(key, level)`` (the
        parts are kept in :attr:`rendered`)."""

        def at(level: int) -> int:
            if (key, level) not in self.costs:
                rendered = self.rendered[key, level] = parts(level)
                self.costs[key, level] = sum(estimate_tokens(p.text) for p in rendered)
            return self.costs[key, level]

        return at

    def _laid_out(
        self, key: str, level: int, parts: Callable[[int], list[ContextPart]]
    ) -> list[ContextPart]:
        found = self.rendered.get((key, level))
        return found if found is not None else parts(level)

    def focus_cost(self, unit: Unit) -> Callable[[int], int]:
        """The tokens of a focus unit's parts at a focus level."""
        return self.memo(f"focus {unit.path}", lambda level: self.focus_parts(unit, level))

    def cost(self, unit: Unit) -> Callable[[int], int]:
        """The tokens of a context unit's parts at a level."""
        return self.memo(unit.path, lambda level: self.parts_at(unit, level))

    def doc_cost(self, path: str) -> Callable[[int], int]:
        """The tokens of a ``-doc`` unit's part at a level."""
        return self.memo(f"doc {path}", lambda level: self.doc_parts(path, level))

    def doc_levels(self, docs: Sequence[str], allowance: int) -> dict[str, int]:
        """``-doc`` units in order while they fit ``allowance`` (then none)."""
        chosen = dict.fromkeys(docs, levels.INVISIBLE)
        for path in docs:
            allowance -= self.doc_cost(path)(levels.DOC)
            if allowance < 0:  # the first that does not fit closes the list
                break
            chosen[path] = levels.DOC
        return chosen

    def stage(
        self,
        fixed: Sequence[ContextPart],
        focus: Sequence[Unit],
        others: Sequence[tuple[Unit, int, bool]],
        *,
        docs: Sequence[str],
        top: int,
        limit: int | None,
        language: Language,
    ) -> tuple[ContextPart, ...]:
        """Every part, sorted: ``fixed`` (always there), the ``focus`` units, the
        ``others`` — each with its minimum level and whether that minimum is guaranteed, in
        priority order — and the ``docs`` paths, at the levels the budget and ``limit``
        (the model's window, ``None`` for none) allow; raises
        :class:`~tai_core.context.ContextTooLarge` when even the least does not fit."""
        parts = list(fixed)
        fixed_tokens = sum(estimate_tokens(p.text) for p in parts)
        focus_levels = dict.fromkeys((unit.path for unit in focus), top)
        focus_tokens = sum(self.focus_cost(unit)(top) for unit in focus)
        units = [unit for unit, _, _ in others]
        candidates = [
            levels.Candidate(unit.path, minimum, guaranteed, self.cost(unit))
            for unit, minimum, guaranteed in others
        ]

        def planned(allowance: int) -> Plan:
            chosen = levels.allocate(candidates, allowance)
            return Plan(focus, units, dict(focus_levels), chosen,
                        self.doc_levels(docs, allowance), fixed_tokens)  # fmt: skip

        allowance = levels.context_budget(focus_tokens)
        plan = usual = planned(allowance)
        if limit is not None:
            if limit - fixed_tokens - focus_tokens < allowance:
                plan = planned(max(0, limit - fixed_tokens - focus_tokens))
            note = fit(self, plan, usual, limit, language)
            parts += [note] if note else []
        for unit in focus:
            level = plan.focus_levels[unit.path]
            parts += self._laid_out(f"focus {unit.path}", level, partial(self.focus_parts, unit))
        for unit in units:
            parts += self._laid_out(unit.path, plan.levels[unit.path], partial(self.parts_at, unit))
        for path, level in plan.docs.items():
            parts += self._laid_out(f"doc {path}", level, partial(self.doc_parts, path))
        return tuple(sorted(parts, key=lambda p: (p.tier, p.key)))
