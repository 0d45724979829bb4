"""Timings against a baseline measured alternately in the same run (not a benchmark itself).

A machine shared with other work changes speed from one second to the next, so a time
alone says little; the same time beside a baseline measured in turn with it says how much
the measured work costs *over* that baseline at that moment. ``alternate`` runs a warm-up
of every measure, then ``runs`` rounds in which each measure runs once (the order rotates
from round to round, so no measure always follows another); ``Series`` is one measure's
times, with its median and spread (min-max); ``ratio`` divides two series round by round
(the two times of a round were taken moments apart).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

_SCALE = {"s": 1.0, "ms": 1e3, "µs": 1e6}


@dataclass(frozen=True)
class Series:
    """The values of one measure, one per round (seconds for times)."""

    values: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    def text(self, unit: str = "ms", digits: int = 0) -> str:
        """``12 ms (11-14)``: median and min-max in ``unit`` (``x`` for ratios)."""
        scale = _SCALE.get(unit, 1.0)
        low, high = min(self.values) * scale, max(self.values) * scale
        suffix = "x" if unit == "x" else f" {unit}"
        return f"{self.median * scale:.{digits}f}{suffix} ({low:.{digits}f}-{high:.{digits}f})"


def timed(call: Callable[[], object]) -> float:
    """Seconds ``call()`` takes."""
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def alternate(
    measures: Mapping[str, Callable[[], float]], runs: int, warmups: int = 1
) -> dict[str, Series]:
    """Run every measure ``warmups`` times, then ``runs`` times in turn; each call performs
    one run and returns its value (seconds, or what the caller measures)."""
    names = list(measures)
    for _ in range(warmups):
        for name in names:
            measures[name]()
    values: dict[str, list[float]] = {name: [] for name in names}
    for run in range(runs):
        shift = run % len(names)
        for name in names[shift:] + names[:shift]:
            values[name].append(measures[name]())
    return {name: Series(tuple(found)) for name, found in values.items()}


def ratio(measured: Series, baseline: Series) -> Series:
    """``measured / baseline`` round by round."""
    return Series(tuple(m / b for m, b in zip(measured.values, baseline.values, strict=True)))


def difference(measured: Series, baseline: Series) -> Series:
    """``measured - baseline`` round by round."""
    return Series(tuple(m - b for m, b in zip(measured.values, baseline.values, strict=True)))


def series(values: Sequence[float]) -> Series:
    return Series(tuple(values))
