"""Loading plugins one at a time, so one broken plugin never takes tai down.

Each entry point of the group ``tai`` is one plugin, named by its entry name. For each,
in name order: skip it when blocked (``-p no:NAME``, config ``disabled_plugins``) or not
allowed (``TAI_LOAD_PLUGINS``); import it; register it with pluggy; check its hook names;
put its other hook implementations behind the failure guard (``_failures``: a raising
implementation is named, and its hook's rule applies); call its registration hooks with a
``register`` callback bound to it; check what it registered. A failure at any step
unregisters the plugin, records the error for ``tai plugins`` and goes on — unless
``TAI_STRICT_PLUGINS=1``, which makes it fatal.
``check_pending()`` runs after loading as the final guard against misspelt hooks.

Registration hooks are called through ``subset_hook_caller`` restricted to the plugin
being loaded, so hook tracing (``TAI_TRACE_PLUGINS=1``) sees them like any other call
and each registration is attributed to exactly one plugin.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

import attrs
import pluggy

from tai_core import hookspecs
from tai_core._nearest import aside, did_you_mean
from tai_core.plugins._entry_points import distribution_version, find_entry_points
from tai_core.plugins._failures import guard_plugin
from tai_core.plugins._manager import Manager
from tai_core.plugins._registry import RegistrationError, Registry, stage
from tai_core.plugins._tracing import Tracer, describe_exception

if TYPE_CHECKING:
    import click

    from tai_core.config import Config
    from tai_core.plugins._entry_points import EntryPoint

#: The entry-point group plugins register under.
ENTRY_POINT_GROUP = "tai"

#: The name of the core's own plugin (the default block hooks); it cannot be blocked.
CORE_PLUGIN = "tai-core"

_REGISTRATION_HOOKS: tuple[tuple[str, str], ...] = (
    ("tai_register_block_kinds", "block_kinds"),
    ("tai_register_providers", "providers"),
    ("tai_register_context_providers", "context_providers"),
    ("tai_register_session_commands", "session_commands"),
)


class PluginLoadError(Exception):
    """A plugin failed to load while ``TAI_STRICT_PLUGINS=1`` makes that fatal."""


def _env_flag(environ: Mapping[str, str], name: str) -> bool:
    return environ.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


@attrs.frozen
class LoadOptions:
    """Which plugins to load and how strictly."""

    #: Plugin names never to load (``-p no:NAME``, config ``disabled_plugins``).
    blocked: frozenset[str] = frozenset()
    #: When not ``None``, the only plugin names to load (``TAI_LOAD_PLUGINS``).
    only: frozenset[str] | None = None
    #: A plugin that fails to load stops tai (``TAI_STRICT_PLUGINS=1``).
    strict: bool = False
    #: Every hook call is traced to stderr (``TAI_TRACE_PLUGINS=1``).
    trace: bool = False

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], blocked: Iterable[str] = ()) -> LoadOptions:
        """Options from the ``TAI_*`` variables, plus the names blocked elsewhere."""
        only = environ.get("TAI_LOAD_PLUGINS")
        return cls(
            blocked=frozenset(blocked),
            only=None
            if only is None
            else frozenset(name.strip() for name in only.split(",") if name.strip()),
            strict=_env_flag(environ, "TAI_STRICT_PLUGINS"),
            trace=_env_flag(environ, "TAI_TRACE_PLUGINS"),
        )


@attrs.define
class PluginRecord:
    """One plugin as ``tai plugins`` reports it."""

    name: str
    module: str
    #: ``loaded``, ``failed``, ``blocked`` or ``not-allowed`` (outside TAI_LOAD_PLUGINS).
    status: str
    distribution: str | None = None
    version: str | None = None
    error: str | None = None
    hooks: list[str] = attrs.Factory(list)
    registers: dict[str, list[str]] = attrs.Factory(dict)


class PluginHost:
    """A pluggy plugin manager with tai's hook specs, and what its plugins registered.

    One host per process run (or per test): nothing here is global, so embedders and tests
    can build as many as they like.
    """

    def __init__(
        self,
        options: LoadOptions | None = None,
        *,
        cli: click.Group | None = None,
        stderr: TextIO | None = None,
        core: object | None = None,
    ) -> None:
        """A host whose plugin ``tai-core`` is ``core`` (default: the core's default hooks,
        :mod:`tai_core.plugins._defaults`; the command line gives the module that also
        adds the core's commands), with no other plugin loaded yet."""
        self.options = options or LoadOptions()
        self.cli = cli
        self.pm: pluggy.PluginManager = Manager("tai")
        self.pm.add_hookspecs(hookspecs)
        self.registry = Registry()
        self.records: list[PluginRecord] = []
        self._stderr = stderr
        #: The deferred categories registered so far (:mod:`._declared`).
        self._declared: set[str] = set()
        if self.options.trace:
            Tracer(lambda: self.stderr).install(self.pm)
        if core is None:
            from tai_core.plugins import _defaults as core
        record = PluginRecord(
            name=CORE_PLUGIN,
            module=getattr(core, "__name__", type(core).__name__),
            status="loaded",
            distribution="tai-core",
        )
        self.records.append(record)
        self._register(core, record)
        for name in self.options.blocked - {CORE_PLUGIN}:
            self.pm.set_blocked(name)

    def declared(self, category: str) -> dict[str, Any]:
        """The things of a category registered on first use (``"agent_commands"``), by
        name: the plugins are asked now if they were not yet (:mod:`._declared`)."""
        from tai_core.plugins._declared import register_deferred

        if category not in self._declared:
            self._declared.add(category)
            register_deferred(self.pm, self.registry, self.records, category, self.stderr)
        table: dict[str, Any] = getattr(self.registry, category)
        return table

    @property
    def stderr(self) -> TextIO:
        """Where warnings and traces go (``sys.stderr`` unless given)."""
        return self._stderr or sys.stderr

    # -- loading ------------------------------------------------------------------------

    def load_entry_points(self, entry_points: Iterable[EntryPoint] | None = None) -> None:
        """Load every plugin of the group ``tai`` (or the given entry points), in name order,
        then run pluggy's ``check_pending``."""
        if entry_points is None:
            entry_points = find_entry_points(ENTRY_POINT_GROUP)
        for entry_point in sorted(entry_points, key=lambda ep: (ep.name, ep.value)):
            self._load_entry_point(entry_point)
        self.pm.check_pending()

    def _load_entry_point(self, entry_point: EntryPoint) -> None:
        name = entry_point.name
        dist = entry_point.dist
        record = PluginRecord(
            name=name, module=entry_point.value, status="loaded",
            distribution=dist.name if dist else None, version=dist.version if dist else None,
        )  # fmt: skip
        earlier = self.record(name)
        self.records.append(record)
        if earlier is not None or name == CORE_PLUGIN:
            taken_by = earlier.module if earlier else "tai itself"
            self._fail(record, f"plugin name {name!r} is already taken by {taken_by!r}")
            return
        if self.pm.is_blocked(name):
            record.status = "blocked"
            return
        if self.options.only is not None and name not in self.options.only:
            record.status = "not-allowed"
            return
        try:
            plugin = entry_point.load()
        except Exception as error:  # noqa: BLE001 - any import failure is the plugin's fault
            self._fail(record, f"import failed: {describe_exception(error)}")
            return
        self._register(plugin, record)

    def register(
        self, plugin: object, name: str, *, distribution: str | None = None
    ) -> PluginRecord:
        """Register ``plugin`` (a module or an object with hook implementations) under
        ``name``, exactly as an entry point would be; for embedders and tests."""
        if self.pm.get_plugin(name) is not None or name == CORE_PLUGIN:
            raise ValueError(f"a plugin named {name!r} is already registered")
        module = getattr(plugin, "__name__", type(plugin).__name__)
        record = PluginRecord(name=name, module=module, status="loaded", distribution=distribution)
        self.records.append(record)
        self._register(plugin, record)
        return record

    def unregister(self, name: str) -> None:
        """Remove the plugin ``name`` and everything it registered."""
        self._withdraw(name)
        self.records = [record for record in self.records if record.name != name]

    def _withdraw(self, name: str) -> None:
        """Take the plugin ``name`` and what it registered out of pluggy, the registry and
        the command line."""
        if self.pm.get_plugin(name) is not None:
            self.pm.unregister(name=name)
        if self.cli is not None:
            for command, owner in self.registry.commands.items():
                if owner == name:
                    self.cli.commands.pop(command, None)
        self.registry.remove_plugin(name)

    # -- settings -----------------------------------------------------------------------

    def configure(self, config: Config) -> None:
        """Check the ``[plugins.NAME]`` tables of ``config`` against the settings the
        plugins declared and give each plugin its own (``tai_core.plugins._settings``);
        raises :class:`tai_core.config.ConfigError` naming file, line and key."""
        from tai_core.plugins._settings import configure

        configure(self, config.values, config.files,
                  lambda line: self.stderr.write(f"tai: warning: {line}\n"))  # fmt: skip

    def configure_plugin(self, name: str, settings: object) -> None:
        """Give the plugin ``name`` its ``settings`` (``tai_configure``); a plugin that
        fails there is skipped, as one that fails to load."""
        plugin = self.pm.get_plugin(name)
        others = [p for p in self.pm.get_plugins() if p is not plugin]
        try:
            self.pm.subset_hook_caller("tai_configure", remove_plugins=others)(settings=settings)
        except Exception as error:  # noqa: BLE001 - the plugin's failure is its load error
            self._withdraw(name)
            record = self.record(name)
            if record is not None:  # warned with the other load failures (warn_failures)
                self._fail(record, f"tai_configure failed: {describe_exception(error)}")

    def _register(self, plugin: object, record: PluginRecord) -> None:
        try:
            self.pm.register(plugin, name=record.name)
        except Exception as error:  # noqa: BLE001 - pluggy's validation names the fault
            self._fail(record, f"registration failed: {error}")
            return
        # pluggy finds a plugin's hooks by going through every hook's implementations:
        # asked once (five times cost a third of the loading of tai's forty plugins)
        callers = self.pm.get_hookcallers(plugin) or []
        if record.name != CORE_PLUGIN:
            guard_plugin(callers, plugin, record.name)
        try:
            self._check_hook_names(callers)
            record.hooks = sorted(caller.name for caller in callers)
            record.registers = self._call_registration_hooks(plugin, record.name, record.hooks)
        except Exception as error:  # noqa: BLE001 - a plugin raising here is reported
            self.pm.unregister(plugin)
            self.registry.remove_plugin(record.name)
            described = (
                str(error)
                if isinstance(error, RegistrationError)
                else f"registration failed: {describe_exception(error)}"
            )
            self._fail(record, described)

    def _check_hook_names(self, callers: Iterable[Any]) -> None:
        unknown = sorted(
            caller.name
            for caller in callers
            if not caller.has_spec()
            and any(not impl.optionalhook for impl in caller.get_hookimpls())
        )
        if unknown:
            known = sorted(name for name in dir(hookspecs) if name.startswith("tai_"))
            raise RegistrationError(
                f"unknown hook(s) {', '.join(unknown)}; tai's hooks are: {', '.join(known)}"
            )

    def _call_registration_hooks(
        self, plugin: object, name: str, implemented: Iterable[str]
    ) -> dict[str, list[str]]:
        others = [p for p in self.pm.get_plugins() if p is not plugin]
        implemented = frozenset(implemented)
        hooks = [(hook, category) for hook, category in _REGISTRATION_HOOKS if hook in implemented]
        staged = stage(self.pm, plugin, name, hooks)
        problems = self.registry.problems(staged)
        if problems:
            raise RegistrationError("; ".join(problems))
        settings = self._settings(others) if "tai_plugin_settings" in implemented else None
        commands = self._add_commands(others) if "tai_register_commands" in implemented else []
        registers = self.registry.commit(staged)
        self.registry.add_commands(name, commands)
        registers["commands"] = commands
        if settings is not None:
            self.registry.add_settings(name, settings)
            registers["settings"] = sorted(settings.model_fields)
        return registers

    def _settings(self, others: list[object]) -> Any:
        """The settings model the plugin being loaded declares (checked)."""
        from tai_core.plugins._settings import settings_model

        model = self.pm.subset_hook_caller("tai_plugin_settings", remove_plugins=others)()
        problem = settings_model(model)
        if problem is not None:
            raise RegistrationError(problem)
        return model

    def _add_commands(self, others: list[object]) -> list[str]:
        if self.cli is None:
            return []
        before = dict(self.cli.commands)
        caller = self.pm.subset_hook_caller("tai_register_commands", remove_plugins=others)
        try:
            caller(cli=self.cli)
        except BaseException:
            self.cli.commands.clear()
            self.cli.commands.update(before)
            raise
        replaced = sorted(
            command for command, obj in before.items() if self.cli.commands.get(command) is not obj
        )
        if replaced:
            self.cli.commands.clear()
            self.cli.commands.update(before)
            raise RegistrationError(f"command(s) {', '.join(replaced)} already exist")
        return sorted(set(self.cli.commands) - set(before))

    def _fail(self, record: PluginRecord, message: str) -> None:
        record.status = "failed"
        record.error = message
        if self.options.strict:
            raise PluginLoadError(f"plugin {record.name!r}: {message}")

    # -- reporting ----------------------------------------------------------------------

    def record(self, name: str) -> PluginRecord | None:
        """The record of the plugin ``name`` (the first one, if the name came twice)."""
        return next((record for record in self.records if record.name == name), None)

    def failures(self) -> list[PluginRecord]:
        """The plugins that failed to load, in load order."""
        return [record for record in self.records if record.status == "failed"]

    def fill_versions(self) -> None:
        """Find the version of plugins registered with a distribution name but no version."""
        for record in self.records:
            if record.version is None and record.distribution is not None:
                record.version = distribution_version(record.distribution)

    def warn_failures(self) -> None:
        """One line on stderr per plugin that failed to load, and per name blocked (``-p
        no:NAME``, ``disabled_plugins``) that no installed plugin has: a misspelt name
        leaves the plugin it meant loaded."""
        for record in self.failures():
            self.stderr.write(
                f"tai: plugin {record.name!r} was skipped: {record.error}\n"
                "     (TAI_STRICT_PLUGINS=1 makes this fatal; `tai plugins` lists all)\n"
            )
        names = {record.name for record in self.records}
        for name in sorted(self.options.blocked - names):
            meant = aside(did_you_mean(name, names, n=1))
            self.stderr.write(
                f"tai: warning: no plugin named {name!r} is installed to leave out{meant}; "
                "`tai plugins` lists them\n"
            )


def default_options(blocked: Iterable[str] = ()) -> LoadOptions:
    """Load options from this process's environment."""
    return LoadOptions.from_environ(os.environ, blocked)
