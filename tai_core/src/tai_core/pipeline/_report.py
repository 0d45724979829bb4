"""The usage table printed at the end of a run: one row per attempt, then totals."""

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


def usage_table(rows: Sequence[UsageRow]) -> str:
    """The table as plain text (empty when nothing was called)."""
    if not rows:
        return ""
    lines = [
        (
            str(row.round),
            str(row.attempt),
            str(row.usage.input),
            str(row.usage.cache_read),
            str(row.usage.output),
            str(row.usage.reasoning),
            f"{row.seconds:.1f}",
            _cost(row.cost),
            row.outcome,
        )
        for row in rows
    ]
    costs = [row.cost for row in rows]
    total_cost = None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
    lines.append(
        (
            "total",
            "",
            str(sum(r.usage.input for r in rows)),
            str(sum(r.usage.cache_read for r in rows)),
            str(sum(r.usage.output for r in rows)),
            str(sum(r.usage.reasoning for r in rows)),
            f"{sum(r.seconds for r in rows):.1f}",
            _cost(total_cost),
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
