"""Where the Go context's collection spends its time (not a benchmark itself).

``Phases`` wraps the functions of the collection that stand for one phase each with
timers, for as long as it is installed: ``go list`` (the load's one call), reading the
files into the snapshot, waiting for documentation (the time the collection blocks on
``go doc`` texts — helper or cache — once it needs them; the helper renders while the
collection works on, so this is less than the helper's own time), and the focus
outlines (tree-sitter: test names, theory constants). What is left is everything else
(git counts, budget, rendering the parts). ``_gocollect.py`` installs them in the
process it measures.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

#: The phases, each as (module, attribute) of the function that stands for it.
WRAPPED = {
    "go list": ("tai_go._load", "go_list"),
    "reading files": ("tai_go._load", "_snapshot"),
    "waiting for docs": ("tai_go._collect", "_Docs.get"),
    "outlines (tree-sitter)": ("tai_go._collect", "focus_outline"),
}


class Phases:
    """Timers around the phase functions (see the module docstring)."""

    def __init__(self) -> None:
        self.seconds = dict.fromkeys(WRAPPED, 0.0)
        self._restore: list[Callable[[], None]] = []

    def install(self) -> Phases:
        import importlib

        for phase, (module_name, attribute) in WRAPPED.items():
            owner: Any = importlib.import_module(module_name)
            *path, name = attribute.split(".")
            for part in path:
                owner = getattr(owner, part)
            original = getattr(owner, name)
            setattr(owner, name, self._timed(phase, original))
            self._restore.append(lambda o=owner, n=name, f=original: setattr(o, n, f))
        return self

    def _timed(self, phase: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[phase] += time.perf_counter() - start

        return timed

    def reset(self) -> None:
        self.seconds = dict.fromkeys(WRAPPED, 0.0)

    def uninstall(self) -> None:
        for restore in reversed(self._restore):
            restore()
        self._restore.clear()


def average(runs: list[dict[str, float]]) -> dict[str, float]:
    """The mean of each phase over ``runs``."""
    return {phase: sum(run[phase] for run in runs) / len(runs) for phase in runs[0]}


def summary(seconds: dict[str, float], total: float) -> str:
    """``phase x.xx s, …, other y.yy s`` for a collection that took ``total``."""
    parts = [f"{phase} {spent:.2f} s" for phase, spent in seconds.items()]
    parts.append(f"other {max(0.0, total - sum(seconds.values())):.2f} s")
    return ", ".join(parts)
