"""Calling observation hooks so that one plugin's failure is its own.

An observation hook (``tai_session_start``, ``tai_turn_end``, ``tai_schedule_tick`` …)
tells plugins what happened; nothing depends on its answer. pluggy calls the
implementations in a row and lets the first exception end the call, so the others would
not hear of it and the session would end with a traceback. :func:`observe` calls each
implementation on its own instead, newest registered first as pluggy would, and turns an
exception into one line naming the plugin and the hook; the others are still called.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def observe(caller: Any, report: Callable[[str], None], **kwargs: Any) -> None:
    """Call every implementation of the hook ``caller`` (a pluggy ``HookCaller``) with the
    arguments it accepts of ``kwargs``; ``report`` receives a line per failure."""
    for impl in reversed(caller.get_hookimpls()):
        if impl.hookwrapper or impl.wrapper:  # a wrapper needs the whole call
            try:
                caller(**kwargs)
            except Exception as error:  # noqa: BLE001 - observers never end a session
                report(f"{caller.name} failed: {type(error).__name__}: {error}")
            return
    for impl in reversed(caller.get_hookimpls()):
        try:
            impl.function(**{name: kwargs[name] for name in impl.argnames})
        except Exception as error:  # noqa: BLE001 - observers never end a session
            report(
                f"plugin {impl.plugin_name}: {caller.name} failed: {type(error).__name__}: {error}"
            )
