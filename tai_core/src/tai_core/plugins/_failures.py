"""A plugin's failure is its own: named, and handled by the rule of the hook it broke.

pluggy lets an exception from any implementation end the whole hook call, and the
traceback names neither the plugin nor the hook. So when a plugin is registered, each of
its hook implementations (but the registration hooks, whose failures already skip the
plugin, and wrappers, which pluggy drives as generators) is put behind :func:`guard`,
which turns any exception into :class:`PluginHookError` — ``plugin 'NAME': HOOK failed:
Type: message`` — with the original as its cause. The call sites then apply the hook's
documented rule (:data:`RULES`, stated in each hook's docstring):

* **observe** — the hook tells plugins what happened: the failure is reported in one line
  and the other plugins are still called (:func:`tai_core.plugins._observe.observe`);
* **decide** — the hook's answer decides one thing (a block, a path, a file, a call):
  that one thing fails, or is refused where refusing is the safe side, with the message;
* **register** — the plugin is skipped and its load error says why.

The core's own plugin is not guarded: its exceptions are tai's, and the pipeline already
handles them. :class:`IsolationError` passes through: raising it is how
``tai_enter_isolation`` says no, by contract.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any


class IsolationError(Exception):
    """Isolation was asked for and cannot be set up: the command must not run model output.

    Raised by ``tai_enter_isolation`` implementations (the sandbox fails closed); the
    message says why and how to proceed.
    """


class PluginHookError(Exception):
    """A plugin's hook implementation raised; ``error`` is what it raised."""

    def __init__(self, plugin: str, hook: str, error: Exception) -> None:
        super().__init__(plugin, hook, error)
        self.plugin = plugin
        self.hook = hook
        self.error = error

    def __str__(self) -> str:
        error = f"{type(self.error).__name__}: {self.error}"
        return f"plugin {self.plugin!r}: {self.hook} failed: {error}"


#: Every hook's failure rule (see the module docstring); a test keeps it complete.
RULES: dict[str, str] = {
    "tai_register_block_kinds": "register",
    "tai_register_providers": "register",
    "tai_register_context_providers": "register",
    "tai_register_commands": "register",
    "tai_register_session_commands": "register",
    "tai_register_agent_commands": "register",
    "tai_plugin_settings": "register",
    "tai_configure": "register",
    "tai_block_parsed": "decide",
    "tai_validate_block": "decide",
    "tai_run_block": "decide",
    "tai_session_start": "observe",
    "tai_session_end": "observe",
    "tai_turn_start": "observe",
    "tai_turn_end": "observe",
    "tai_round_start": "observe",
    "tai_round_end": "observe",
    "tai_system_prompt": "observe",
    "tai_before_model_call": "decide",
    "tai_after_model_call": "observe",
    "tai_before_compaction": "decide",
    "tai_after_compaction": "observe",
    "tai_schedule_tick": "observe",
    "tai_prepare_isolation": "observe",
    "tai_enter_isolation": "decide",
    "tai_block_process": "decide",
    "tai_shell_policy": "decide",
    "tai_secret_file": "decide",
    "tai_path_policy": "decide",
    "tai_checkpoint": "observe",
}

#: Exceptions a hook implementation raises by contract, passed on as they are.
DECLARED: tuple[type[Exception], ...] = (IsolationError,)


def guard(function: Callable[..., Any], plugin: str, hook: str) -> Callable[..., Any]:
    """``function`` (a plugin's implementation of ``hook``), raising
    :class:`PluginHookError` for any exception but a declared one."""

    @functools.wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except DECLARED:
            raise
        except PluginHookError:
            raise  # a hook calling another hook: the inner one is named already
        except Exception as error:
            raise PluginHookError(plugin, hook, error) from error

    return guarded


def validation_problems(hook: Any, block: Any, kind: Any) -> list[str]:
    """Every plugin's problems with ``block`` (``tai_validate_block``); a plugin whose
    validation raised makes the block invalid, its failure the problem."""
    try:
        return [problem for found in hook.tai_validate_block(block=block, kind=kind)
                for problem in found]  # fmt: skip
    except PluginHookError as error:
        return [str(error)]


def guard_plugin(callers: Iterable[Any], plugin: object, name: str) -> None:
    """Put every hook implementation of the registered ``plugin`` (in ``callers``, the
    hook callers pluggy has for it) behind :func:`guard`, but its registration hooks and
    wrappers."""
    for caller in callers:
        if RULES.get(caller.name) == "register":
            continue
        for impl in caller.get_hookimpls():
            if impl.plugin is plugin and not (impl.wrapper or impl.hookwrapper):
                impl.function = guard(impl.function, name, caller.name)
