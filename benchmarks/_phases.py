"""Where the Go context's collection spends its time (not a benchmark itself).

``Phases`` wraps the functions of the collection that stand for one phase each with
timers, for as long as it is installed: ``go list`` (the load's one call), reading the
files into the snapshot, waiting for documentation (the time the collection blocks on
``go doc`` texts — helper or cache — once it needs them; the helper renders while the
collection works on, so this is less than the helper's own time), and the focus
outlines (tree-sitter: test names, theory constants). What is left is everything else
(git counts, budget, rendering the parts). ``cold_and_warm`` runs the measurement both
``go_context.py`` and ``go_context_tools.py`` make, each on its own module.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

#: The phases, each as (module, attribute) of the function that stands for it.
WRAPPED = {
    "go list": ("tai_blocks.go._load", "go_list"),
    "reading files": ("tai_blocks.go._load", "_snapshot"),
    "waiting for docs": ("tai_blocks.go._collect", "_Docs.get"),
    "outlines (tree-sitter)": ("tai_blocks.go._collect", "focus_outline"),
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

    def summary(self, total: float) -> str:
        """``phase x.xx s, …, other y.yy s`` for a collection that took ``total``."""
        parts = [f"{phase} {seconds:.2f} s" for phase, seconds in self.seconds.items()]
        parts.append(f"other {max(0.0, total - sum(self.seconds.values())):.2f} s")
        return ", ".join(parts)


def average(runs: list[dict[str, float]]) -> dict[str, float]:
    """The mean of each phase over ``runs``."""
    return {phase: sum(run[phase] for run in runs) / len(runs) for phase in runs[0]}


def user_go_cache() -> str:
    """The user's Go build cache (kept when ``XDG_CACHE_HOME`` moves tai's caches)."""
    import subprocess

    done = subprocess.run(["go", "env", "GOCACHE"], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def cold_and_warm(root: Any, cold_runs: int, warm_runs: int) -> tuple[str, int]:
    """Collect the Go context of ``root`` cold ``cold_runs`` times (tai's ``go doc``
    cache, its memory of it and the parse cache emptied) and warm ``warm_runs`` times
    (every warm run must give the cold run's parts); ``cold median …, warm median …;
    cold: phases; helper processes per cold run: N`` and the number of parts. The
    documentation helper is built first, as tai builds it before the sandbox starts."""
    import os
    import shutil
    import statistics

    from tai_blocks.go import _gocmd, _render
    from tai_blocks.go._docsession import processes_started
    from tai_blocks.go._godoc import install
    from tai_blocks.go.provider import PROVIDER
    from tai_core.config import user_cache_dir
    from tai_core.context import ContextRequest

    install(root)
    request = ContextRequest(cwd=root, command="go")
    PROVIDER.collect(request)  # the file system's caches, as on a machine in use
    phases = Phases().install()
    cold, split, helpers = [], [], []
    for _ in range(cold_runs):
        shutil.rmtree(user_cache_dir() / "go-doc", ignore_errors=True)
        _gocmd._memory.clear()
        _render._declarations.cache_clear()  # parsed files are cached by content too
        phases.reset()
        before = processes_started()
        start = time.perf_counter()
        parts = PROVIDER.collect(request)
        cold.append(time.perf_counter() - start)
        helpers.append(processes_started() - before)
        split.append(dict(phases.seconds))
    phases.uninstall()
    warm = []
    for _ in range(warm_runs):
        start = time.perf_counter()
        again = PROVIDER.collect(request)
        warm.append(time.perf_counter() - start)
        assert again == parts
    phases.seconds = average(split)
    line = (
        f"cold median {statistics.median(cold):.2f} s over {cold_runs} runs, warm median "
        f"{statistics.median(warm):.2f} s over {warm_runs} runs, on {os.cpu_count()} CPUs; "
        f"cold: {phases.summary(statistics.mean(cold))}; helper processes per cold run: "
        f"{max(helpers)}"
    )
    return line, len(parts)
