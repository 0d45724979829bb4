"""Plain-text tables for listings (``tai record``, ``tai sessions``): a header line and a
line per row, columns two spaces apart, the numeric ones right-aligned, no trailing
blanks — readable on a terminal and easy to cut with ``awk``."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from tai_core._printable import printable


def table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Collection[int] = ()) -> str:
    """``rows`` under ``header``; the columns whose index is in ``right`` right-aligned. The
    cells come from databases a model's command could write: they are shown printable."""
    lines = [tuple(header), *(tuple(map(printable, row)) for row in rows)]
    widths = [max(len(cells[i]) for cells in lines) for i in range(len(header))]
    return "\n".join(
        "  ".join(
            cell.rjust(width) if i in right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()
        for cells in lines
    )


def clock(stamp: str) -> str:
    """``2026-01-02 10:11:12`` of a stored time (ISO 8601)."""
    return stamp[:19].replace("T", " ")
