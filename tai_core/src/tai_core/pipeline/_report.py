"""The usage table printed at the end of a run: one row per attempt, then totals.

A row whose usage tai estimated (an attempt cut before the provider reported it) shows its
counts and cost with ``~``, and so do totals that include one."""

from __future__ import annotations

from collections.abc import Sequence

from tai_core.pipeline._state import UsageRow

_HEADER = (
    "Round",
    "Try",
    "Prompt",
    "Cached",
    "Completion",
    "Thoughts",
    "Seconds",
    "Cost",
    "Outcome",
)


def _cost(value: float | None) -> str:
    return "-" if value is None else f"${value:.4f}"


def _about(estimated: bool, *values: object) -> tuple[str, ...]:
    """``values`` as cells, each with ``~`` when they are estimates (``-`` stays ``-``)."""
    mark = "~" if estimated else ""
    return tuple(f"{mark}{value}" if value != "-" else "-" for value in values)


def usage_table(rows: Sequence[UsageRow]) -> str:
    """The table as plain text (empty when nothing was called)."""
    if not rows:
        return ""
    lines = [
        (
            str(row.round),
            str(row.attempt),
            *_about(
                row.estimated,
                row.usage.input,
                row.usage.cache_read,
                row.usage.output,
                row.usage.reasoning,
            ),
            f"{row.seconds:.1f}",
            _about(row.estimated, _cost(row.cost))[0],
            row.outcome,
        )
        for row in rows
    ]
    costs = [row.cost for row in rows]
    total_cost = None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
    guessed = any(row.estimated for row in rows)
    lines.append(
        (
            "total",
            "",
            *_about(
                guessed,
                sum(r.usage.input for r in rows),
                sum(r.usage.cache_read for r in rows),
                sum(r.usage.output for r in rows),
                sum(r.usage.reasoning for r in rows),
            ),
            f"{sum(r.seconds for r in rows):.1f}",
            _about(guessed, _cost(total_cost))[0],
            "",
        )
    )
    widths = [max(len(cells[i]) for cells in (_HEADER, *lines)) for i in range(len(_HEADER))]
    render = [
        "  ".join(
            cell.rjust(width) if i < 8 else cell
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()
        for cells in (_HEADER, *lines)
    ]
    return "\n".join(render)
