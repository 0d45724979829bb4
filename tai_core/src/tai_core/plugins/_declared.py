"""Registrations made on first use: the agent commands, read from files.

The agents plugin reads Markdown files with YAML frontmatter and compiles Jinja2
templates: about 150 ms of imports. ``tai next``, ``tai code`` and ``tai --help`` never
use agent commands, so their registration hook (``tai_register_agent_commands``) is not
called while plugins load, but the first time something asks for them
(:meth:`PluginHost.declared`: a chat's runtime, ``tai plugins``). What each plugin
registers then is checked as at load — the contract, names taken by another plugin — one
declaration at a time: these come from the user's files, so one that fails (a name a
session command has, say ``help``) is left out with a warning naming it, and the others
register. A plugin whose hook fails contributes none; it stays loaded for everything else.
"""

from __future__ import annotations

from typing import Any, TextIO

from tai_core.plugins._registry import Registry, Staging, stage

#: Deferred category -> its registration hook.
DEFERRED: dict[str, str] = {"agent_commands": "tai_register_agent_commands"}


def register_deferred(pm: Any, registry: Registry, records: Any, category: str,
                      stderr: TextIO) -> None:  # fmt: skip
    """Call ``category``'s registration hook of each loaded plugin, in load order, and add
    what passes the checks to ``registry`` (and to the plugin's record)."""
    hook = DEFERRED[category]
    for record in records:
        plugin = pm.get_plugin(record.name)
        if record.status != "loaded" or plugin is None:
            continue
        if hook not in record.hooks:
            continue
        label = category.replace("_", " ")
        try:
            staged = stage(pm, plugin, record.name, [(hook, category)])
        except Exception as error:  # noqa: BLE001 - the plugin's failure is its own
            failure = f"{hook} failed: {type(error).__name__}: {error}"
            stderr.write(f"tai: warning: plugin {record.name!r}: its {label} are not "
                         f"registered: {failure}\n")  # fmt: skip
            continue
        names: list[str] = []
        for thing in getattr(staged, category):  # one declaration's fault is its own
            alone = Staging(plugin=staged.plugin, **{category: [thing]})
            problems = registry.problems(alone)
            if problems:
                where = getattr(thing, "source", "") or getattr(thing, "name", "")
                stderr.write(f"tai: warning: plugin {record.name!r}: {where}: not registered: "
                             f"{'; '.join(problems)}\n")  # fmt: skip
                continue
            names += registry.commit(alone)[category]
        record.registers[category] = names
