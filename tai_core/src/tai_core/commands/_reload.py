"""Reading the configuration and the installed plugins again, for a running runtime.

The runtime's ``ReloadExtensions`` calls what :func:`reloader` returns: a new plugin host
built as the command line built the first (the same ``-p no:NAME`` blocks, the
configuration's ``disabled_plugins`` read again, the core plugin the first host had), its
plugins configured from the configuration read again, and how a session's setup moves to
it. Nothing of the running host changes until all of that has worked: a configuration that
cannot be used raises, and the runtime keeps what it had.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import attrs

from tai_core.app import AppContext
from tai_core.commands._session import Context
from tai_core.config import load_config
from tai_core.plugins import CORE_PLUGIN, PluginHost
from tai_core.runtime import Reloaded, SessionSetup

_WARNING = "tai: warning: "


def reloader(app: AppContext, cwd: Path) -> Callable[[], Reloaded]:
    """The reload of ``app``'s plugins and configuration (as read in ``cwd``)."""
    from_command_line = app.host.options.blocked - set(app.config.get("disabled_plugins", []))
    core = app.host.pm.get_plugin(CORE_PLUGIN)

    def reload() -> Reloaded:
        config = load_config(cwd)
        blocked = frozenset([*from_command_line, *config.get("disabled_plugins", [])])
        stderr = io.StringIO()
        host = PluginHost(attrs.evolve(app.host.options, blocked=blocked), stderr=stderr,
                          core=core)  # fmt: skip
        host.load_entry_points()
        host.configure(config)
        problems = [f"plugin {r.name!r} was skipped: {r.error}" for r in host.failures()]
        problems += [line.removeprefix(_WARNING) for line in stderr.getvalue().splitlines()
                     if line.startswith(_WARNING)]  # fmt: skip

        def rebind(setup: SessionSetup) -> SessionSetup:
            context = setup.context
            if isinstance(context, Context):
                context = attrs.evolve(context, hook=host.pm.hook, config=config.values)
            provider = host.registry.providers.get(setup.spec.provider, setup.provider)
            return attrs.evolve(setup, provider=provider, kinds=host.registry.block_kinds,
                                context=context)  # fmt: skip

        return Reloaded(
            hook=host.pm.hook, extensions=host.registry.extensions(), rebind=rebind,
            plugins=tuple(r.name for r in host.records if r.status == "loaded"),
            problems=tuple(problems), app=attrs.evolve(app, host=host, config=config),
            agents=lambda: host.declared("agent_commands"),
        )  # fmt: skip

    return reload
