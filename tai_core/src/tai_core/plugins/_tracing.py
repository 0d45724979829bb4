"""``TAI_TRACE_PLUGINS=1``: every hook call on stderr, with its arguments, the plugins it
reaches, what came back (or what was raised, with the innermost frame) and how long it
took — the first thing to look at when a plugin does not do what its author expected."""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Mapping
from typing import Any, TextIO

import pluggy


def short_repr(value: object, limit: int = 100) -> str:
    """``repr(value)``, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_exception(error: BaseException) -> str:
    """``Type: message`` plus the innermost frame, enough to find the fault."""
    text = f"{type(error).__name__}: {error}"
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        last = frames[-1]
        text += f" ({last.filename}:{last.lineno})"
    return text


class Tracer:
    """The before/after monitors of a plugin manager, writing to ``stderr()``."""

    def __init__(self, stderr: Callable[[], TextIO]) -> None:
        self.stderr = stderr
        self._started: dict[str, float] = {}

    def install(self, pm: pluggy.PluginManager) -> None:
        """Trace every hook call of ``pm`` from now on."""
        pm.add_hookcall_monitoring(self.before, self.after)

    def before(
        self, hook_name: str, impls: list[pluggy.HookImpl], kwargs: Mapping[str, Any]
    ) -> None:
        """A call begins: its arguments and the plugins it reaches."""
        args = ", ".join(f"{key}={short_repr(value)}" for key, value in kwargs.items())
        plugins = ", ".join(impl.plugin_name for impl in impls) or "no implementation"
        self.stderr().write(f"[tai trace] {hook_name}({args}) -> {plugins}\n")
        self._started[hook_name] = time.perf_counter()

    def after(
        self,
        outcome: pluggy.Result[Any],
        hook_name: str,
        impls: list[pluggy.HookImpl],
        kwargs: Mapping[str, Any],
    ) -> None:
        """A call ended: what it returned or raised, and in how long."""
        del impls, kwargs
        elapsed = (time.perf_counter() - self._started.pop(hook_name, time.perf_counter())) * 1e3
        if outcome.exception is not None:
            shown = f"raised {describe_exception(outcome.exception)}"
        else:
            shown = f"returned {outcome.get_result()!r}"
        self.stderr().write(f"[tai trace] {hook_name} {shown} in {elapsed:.2f} ms\n")
