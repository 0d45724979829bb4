"""Calling observation hooks so that one plugin's failure is its own.

An observation hook (``tai_session_start``, ``tai_round_end``, ``tai_checkpoint`` …) tells
plugins what happened; nothing depends on its answer. pluggy calls the implementations in
a row and lets the first exception end the call, so the others would not hear of it and the
run would end with a traceback. :func:`observe` calls each implementation on its own
instead, newest registered first as pluggy would; a failure (named by the failure guard,
:mod:`tai_core.plugins._failures`) becomes one reported line and the others are still
called. A hook with a wrapper among its implementations is called whole, as the wrapper
needs: then a failure still ends up as one reported line, but the implementations after
it in the call are not called.

A decision hook whose answers are merged (``tai_before_model_call``) is called the same
way by :func:`named_answers`, so that an answer tai cannot carry out is reported with the
name of the plugin that gave it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tai_core.plugins._failures import PluginHookError


def observe(caller: Any, report: Callable[[str], None], **kwargs: Any) -> None:
    """Call every implementation of the hook ``caller`` (a pluggy ``HookCaller``) with the
    arguments it accepts of ``kwargs``; ``report`` receives a line per failure."""
    gathered(caller, report, **kwargs)


def gathered(caller: Any, report: Callable[[str], None], **kwargs: Any) -> list[tuple[str, Any]]:
    """As :func:`observe`, and every answer but ``None``, each with its plugin's name (in
    call order; a hook with a wrapper among its implementations answers as ``"?"``)."""
    impls = list(reversed(caller.get_hookimpls()))
    answers: list[tuple[str, Any]] = []
    if any(impl.hookwrapper or impl.wrapper for impl in impls):
        calls = [lambda: answers.extend(("?", answer) for answer in caller(**kwargs))]
    else:
        calls = [
            lambda impl=impl: answers.append(
                (impl.plugin_name, impl.function(**{n: kwargs[n] for n in impl.argnames}))
            )
            for impl in impls
        ]
    for call in calls:
        _reported(call, caller.name, report)
    return [(name, answer) for name, answer in answers if answer is not None]


def _reported(call: Callable[[], object], hook: str, report: Callable[[str], None]) -> None:
    try:
        call()
    except PluginHookError as error:
        report(str(error))
    except Exception as error:  # noqa: BLE001 - observers never end a run
        report(f"{hook} failed: {type(error).__name__}: {error}")


def named_answers(caller: Any, **kwargs: Any) -> list[tuple[str, Any]]:
    """Every implementation's answer to the hook ``caller`` but ``None``, each with its
    plugin's name, oldest registered first (a later plugin's answer wins where answers are
    merged). A failure is raised as it comes (:class:`PluginHookError`, naming the plugin);
    a hook with a wrapper is called whole, its answers then named ``"?"``."""
    impls = caller.get_hookimpls()
    if any(impl.hookwrapper or impl.wrapper for impl in impls):
        return [("?", answer) for answer in reversed(caller(**kwargs))]
    named = []
    for impl in impls:
        answer = impl.function(**{name: kwargs[name] for name in impl.argnames})
        if answer is not None:
            named.append((impl.plugin_name, answer))
    return named
