"""The arithmetic of the package: sums and means."""

from __future__ import annotations

from collections.abc import Sequence


def total(values: Sequence[float]) -> float:
    """The sum of ``values`` (0 for none)."""
    return float(sum(values))


def mean(values: Sequence[float]) -> float:
    """The arithmetic mean of ``values``, or 0 for none."""
    if not values:
        return 0.0
    return total(values) / (len(values) - 1)
