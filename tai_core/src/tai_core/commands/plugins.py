"""``tai plugins``: what is installed, what each plugin registers, and what failed.

The first thing a user runs when a kind or provider seems missing, so it answers the
usual questions directly: is the plugin there, which distribution and version, is it
blocked, did it fail and why, and — when nothing is installed — what to install.
"""

from __future__ import annotations

import json
from typing import Any

import click

from tai_core._nearest import did_you_mean
from tai_core._printable import printable
from tai_core.plugins import CATEGORIES, PluginHost, PluginRecord

_LABELS = {
    "block_kinds": "block kinds",
    "providers": "providers",
    "context_providers": "context providers",
    "session_commands": "session commands",
    "agent_commands": "agent commands",
    "commands": "commands",
}

_NOTHING_INSTALLED = {
    "block_kinds": "No block kinds are installed (install tai-blocks, or a plugin that "
    "registers block kinds): replies cannot be acted on.",
    "providers": "No providers are installed: tai cannot talk to a model (providers come "
    "from tai-providers or a provider plugin).",
    "context_providers": "No context providers are installed.",
}


def _record_dict(host: PluginHost, record: PluginRecord) -> dict[str, Any]:
    model = host.registry.settings.get(record.name) if record.status == "loaded" else None
    return {
        "name": record.name,
        "module": record.module,
        "distribution": record.distribution,
        "version": record.version,
        "status": record.status,
        "error": record.error,
        "hooks": record.hooks,
        **{category: record.registers.get(category, []) for category in CATEGORIES},
        # the JSON schema of its [plugins.NAME] table, when it declared settings
        "settings": model.model_json_schema() if model is not None else None,
    }


def _what(record: PluginRecord) -> str:
    if record.status == "failed":
        return f"FAILED: {record.error}"
    if record.status == "blocked":
        return "blocked (-p no:NAME or disabled_plugins)"
    if record.status == "not-allowed":
        return "not loaded (not in TAI_LOAD_PLUGINS)"
    parts = [
        f"{_LABELS[category]}: {', '.join(names)}"
        for category in CATEGORIES
        if (names := record.registers.get(category))
    ]
    if settings := record.registers.get("settings"):
        parts.append(f"settings [plugins.{record.name}]: {', '.join(settings)}")
    return "; ".join(parts) or "hooks: " + (", ".join(record.hooks) or "none")


def _text(host: PluginHost, records: list[PluginRecord], hooks: tuple[str, ...] = ()) -> str:
    rows = [
        (
            record.name,
            " ".join(filter(None, (record.distribution, record.version))) or "-",
            _what(record),
        )
        for record in records
    ]
    width_name = max((len(row[0]) for row in rows), default=4)
    width_dist = max((len(row[1]) for row in rows), default=12)
    lines = [f"{'NAME':<{width_name}}  {'DISTRIBUTION':<{width_dist}}  REGISTERS"]
    lines += [f"{name:<{width_name}}  {dist:<{width_dist}}  {what}" for name, dist, what in rows]
    registry = host.registry
    lines.append("")
    if hooks:  # the totals are every plugin's: with a filter they would read as its
        lines.append(
            f"{len(records)} of {len(host.records)} plugins implement {' or '.join(hooks)}"
        )
        return "\n".join(lines)
    for category, table in (
        ("block_kinds", registry.block_kinds),
        ("providers", registry.providers),
        ("context_providers", registry.context_providers),
    ):
        if table:
            label = _LABELS[category].capitalize()
            lines.append(f"{label} ({len(table)}): {', '.join(sorted(table))}")
        else:
            lines.append(_NOTHING_INSTALLED[category])
    return "\n".join(lines)


def _known_hooks(host: PluginHost, hooks: tuple[str, ...]) -> None:
    """Refuse a ``--hook`` that names no hook (an empty table would read as "no plugin
    implements it"), with the nearest names."""
    known = sorted(name for name in vars(host.pm.hook) if name.startswith("tai_"))
    for hook in hooks:
        if hook.startswith("-"):  # `--hook --json`: click took the next option as the value
            raise click.UsageError(
                f"-hook takes the name of a hook, and {printable(hook)} is an option: "
                "name the hook first (tai plugins -hook tai_run_block -json)"
            )
        if hook not in known:
            mean = did_you_mean(hook, known, str, 3) or f"the hooks: {', '.join(known)}"
            raise click.UsageError(f"unknown hook {printable(hook)!r} ({mean})")


@click.command("plugins")
@click.option("-json", "--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option(
    "-hook", "--hook", "hooks", multiple=True, help="Only plugins implementing this hook."
)
@click.pass_obj
def plugins_command(app: Any, as_json: bool, hooks: tuple[str, ...]) -> None:
    """List the installed plugins, what each registers, and load errors."""
    host: PluginHost = app.host
    _known_hooks(host, hooks)
    host.fill_versions()
    host.declared("agent_commands")  # registered on first use: listed here too
    records = [
        record
        for record in host.records
        if not hooks or any(hook in record.hooks for hook in hooks)
    ]
    if as_json:
        registry = host.registry
        document = {
            "plugins": [_record_dict(host, record) for record in records],
            "block_kinds": sorted(registry.block_kinds),
            "providers": sorted(registry.providers),
            "context_providers": sorted(registry.context_providers),
            "session_commands": sorted(registry.session_commands),
            "commands": sorted(registry.commands),
        }
        click.echo(json.dumps(document, indent=2))
    else:
        click.echo(_text(host, records, hooks))
