"""The plugin layer: loading one plugin at a time, isolation, blocking, tracing."""

from __future__ import annotations

import io
from importlib.metadata import EntryPoint

import click
import pytest

from tai_core import BlockKind, _core_plugin, hookimpl
from tai_core.cli import make_group
from tai_core.plugins import CORE_PLUGIN, LoadOptions, PluginHost, PluginLoadError

BUILTIN_KINDS = {
    "change", "shell", "go-test", "go-src", "continue", "summary",
    "ingest", "memory", "done", "new-plan", "response", "plan-op", "skill", "pytest", "py-src",
}  # fmt: skip


class Scribble(BlockKind):
    name = "scribble"
    commands = frozenset({"go"})
    prompt_section = "# scribble blocks"
    restatement = "scribble"
    disabled_notice = "no scribbling"


class ScribblePlugin:
    __name__ = "scribble_plugin"

    @hookimpl
    def tai_register_block_kinds(self, register):
        register(Scribble())

    @hookimpl
    def tai_register_commands(self, cli):
        @cli.command("scribble")
        def scribble() -> None:
            click.echo("scribbled")


@pytest.fixture
def scribble(host: PluginHost):
    """Register a plugin for one test and always unregister it (llm's pattern)."""
    host.register(ScribblePlugin(), "scribble")
    try:
        yield host
    finally:
        host.unregister("scribble")


def test_every_builtin_kind_is_its_own_plugin(host: PluginHost) -> None:
    assert set(host.registry.block_kinds) == BUILTIN_KINDS
    for kind in BUILTIN_KINDS:
        record = host.record(kind)
        assert record is not None and record.status == "loaded"
        assert record.distribution == f"tai-kind-{kind}"
        assert record.registers["block_kinds"] == [kind]
        assert host.registry.owners["block_kinds", kind] == kind


def test_core_plugin_adds_core_commands_through_the_hook(host: PluginHost) -> None:
    core = host.record(CORE_PLUGIN)
    assert core is not None
    assert core.registers["commands"] == [
        "ai", "code", "next", "parse", "ping", "plugins", "record", "serve", "sessions"
    ]  # fmt: skip
    assert "tai_register_commands" in core.hooks
    assert {"parse", "plugins"} <= set(host.cli.commands)


def test_register_and_unregister_a_plugin(scribble: PluginHost) -> None:
    assert "scribble" in scribble.registry.block_kinds
    assert "scribble" in scribble.cli.commands
    assert scribble.record("scribble").registers == {
        "block_kinds": ["scribble"], "providers": [], "context_providers": [],
        "session_commands": [], "agent_commands": [], "commands": ["scribble"],
    }  # fmt: skip
    scribble.unregister("scribble")
    assert "scribble" not in scribble.registry.block_kinds
    assert "scribble" not in scribble.cli.commands
    assert scribble.record("scribble") is None
    assert scribble.pm.get_plugin("scribble") is None
    scribble.register(ScribblePlugin(), "scribble")  # the fixture unregisters it again


class Raising:
    __name__ = "raising"

    @hookimpl
    def tai_register_block_kinds(self, register):
        register(Scribble())
        raise RuntimeError("database not reachable")


def test_plugin_raising_at_registration_is_reported_and_skipped(host: PluginHost) -> None:
    record = host.register(Raising(), "raising")
    assert record.status == "failed"
    assert "RuntimeError: database not reachable" in record.error
    assert "scribble" not in host.registry.block_kinds  # nothing half-registered
    assert host.pm.get_plugin("raising") is None
    host.warn_failures()
    assert "plugin 'raising' was skipped" in host.stderr.getvalue()


def test_strict_mode_makes_a_failure_fatal() -> None:
    strict = PluginHost(LoadOptions(strict=True), stderr=io.StringIO())
    with pytest.raises(PluginLoadError, match="database not reachable"):
        strict.register(Raising(), "raising")


def test_import_failure_is_reported_and_others_still_load(stderr: io.StringIO) -> None:
    points = [
        EntryPoint(name="broken", value="tai_no_such_module_xyz", group="tai"),
        EntryPoint(name="shell", value="tai_kind_shell", group="tai"),
    ]
    plugin_host = PluginHost(LoadOptions(), stderr=stderr)
    plugin_host.load_entry_points(points)
    broken = plugin_host.record("broken")
    assert broken.status == "failed"
    assert "import failed: ModuleNotFoundError" in broken.error
    assert "tai_no_such_module_xyz" in broken.error
    assert set(plugin_host.registry.block_kinds) == {"shell"}


def test_import_failure_is_fatal_when_strict() -> None:
    points = [EntryPoint(name="broken", value="tai_no_such_module_xyz", group="tai")]
    with pytest.raises(PluginLoadError, match="import failed"):
        PluginHost(LoadOptions(strict=True)).load_entry_points(points)


class Misspelt:
    __name__ = "misspelt"

    @hookimpl
    def tai_register_blok_kinds(self, register):
        register(Scribble())


def test_misspelt_hook_fails_loudly(host: PluginHost) -> None:
    record = host.register(Misspelt(), "misspelt")
    assert record.status == "failed"
    assert "unknown hook(s) tai_register_blok_kinds" in record.error
    assert "tai_register_block_kinds" in record.error  # the list of real hooks helps
    host.pm.check_pending()  # nothing unknown was left registered


class Impostor:
    __name__ = "impostor"

    @hookimpl
    def tai_register_block_kinds(self, register):
        kind = Scribble()
        kind.name = "shell"
        register(kind)


def test_kind_name_collision_is_the_later_plugins_error(host: PluginHost) -> None:
    record = host.register(Impostor(), "impostor")
    assert record.status == "failed"
    assert "block kind 'shell' is already registered by 'shell'" in record.error
    assert type(host.registry.block_kinds["shell"]).__name__ == "ShellKind"


class Incomplete:
    __name__ = "incomplete"

    @hookimpl
    def tai_register_block_kinds(self, register):
        register(object())


def test_kind_breaking_the_contract_is_refused(host: PluginHost) -> None:
    record = host.register(Incomplete(), "incomplete")
    assert record.status == "failed"
    assert "does not fulfil the contract" in record.error
    assert "prompt_section" in record.error


class Sparse:
    """A kind without the base class that lacks what the pipeline reads of every kind,
    and streams without saying how it applies."""

    name = "sparse"
    params = ()
    prompt_section = restatement = disabled_notice = "sparse"
    streams = True
    triggers_round = False
    commands = frozenset({"go"})

    def validate(self, block):
        return []

    def execute(self, block, context):
        raise NotImplementedError


class SparsePlugin:
    __name__ = "sparse"

    @hookimpl
    def tai_register_block_kinds(self, register):
        register(Sparse())


def test_a_kind_must_have_every_member_the_pipeline_reads(host: PluginHost) -> None:
    record = host.register(SparsePlugin(), "sparse")
    assert record.status == "failed"
    for member in ("max_rounds", "runs", "runs_programs", "apply (a kind that streams"):
        assert member in record.error, record.error


class CommandThief:
    __name__ = "thief"

    @hookimpl
    def tai_register_commands(self, cli):
        @cli.command("plugins")
        def fake() -> None:
            click.echo("not the real one")


def test_command_collision_keeps_the_original(host: PluginHost) -> None:
    original = host.cli.commands["plugins"]
    record = host.register(CommandThief(), "thief")
    assert record.status == "failed"
    assert "command(s) plugins already exist" in record.error
    assert host.cli.commands["plugins"] is original


def test_blocked_plugins_are_not_loaded(stderr: io.StringIO) -> None:
    plugin_host = PluginHost(LoadOptions(blocked=frozenset({"shell", "memory"})), stderr=stderr)
    plugin_host.load_entry_points()
    assert plugin_host.record("shell").status == "blocked"
    assert set(plugin_host.registry.block_kinds) == BUILTIN_KINDS - {"shell", "memory"}


def test_a_blocked_name_no_plugin_has_is_named(stderr: io.StringIO) -> None:
    """``-p no:shel`` leaves the shell plugin loaded: the user is told, with the name
    meant; a name far from every plugin's gets no guess; a real one says nothing."""
    blocked = frozenset({"shel", "zzqx", "memory"})
    plugin_host = PluginHost(LoadOptions(blocked=blocked), stderr=stderr)
    plugin_host.load_entry_points()
    plugin_host.warn_failures()
    assert stderr.getvalue().splitlines() == [
        "tai: warning: no plugin named 'shel' is installed to leave out (did you mean "
        "'shell'?); `tai plugins` lists them",
        "tai: warning: no plugin named 'zzqx' is installed to leave out; `tai plugins` lists them",
    ]


def test_core_plugin_cannot_be_blocked(stderr: io.StringIO) -> None:
    plugin_host = PluginHost(
        LoadOptions(blocked=frozenset({CORE_PLUGIN})), cli=make_group(), core=_core_plugin
    )
    assert plugin_host.record(CORE_PLUGIN).status == "loaded"
    assert "plugins" in plugin_host.cli.commands


def test_allowlist_loads_only_the_named_plugins(stderr: io.StringIO) -> None:
    options = LoadOptions.from_environ({"TAI_LOAD_PLUGINS": "change, summary"})
    plugin_host = PluginHost(options, stderr=stderr)
    plugin_host.load_entry_points()
    assert set(plugin_host.registry.block_kinds) == {"change", "summary"}
    assert plugin_host.record("shell").status == "not-allowed"


def test_empty_allowlist_loads_no_plugin(stderr: io.StringIO) -> None:
    plugin_host = PluginHost(LoadOptions.from_environ({"TAI_LOAD_PLUGINS": ""}), stderr=stderr)
    plugin_host.load_entry_points()
    assert plugin_host.registry.block_kinds == {}


def test_environment_flags() -> None:
    options = LoadOptions.from_environ({"TAI_STRICT_PLUGINS": "1", "TAI_TRACE_PLUGINS": "yes"})
    assert options.strict and options.trace and options.only is None
    quiet = LoadOptions.from_environ({"TAI_STRICT_PLUGINS": "0", "TAI_TRACE_PLUGINS": ""})
    assert not quiet.strict and not quiet.trace


def test_tracing_shows_every_hook_call(stderr: io.StringIO) -> None:
    points = [EntryPoint(name="shell", value="tai_kind_shell", group="tai")]
    plugin_host = PluginHost(LoadOptions(trace=True), stderr=stderr)
    plugin_host.load_entry_points(points)
    trace = stderr.getvalue()
    assert "[tai trace] tai_register_block_kinds(register=<register block kinds of" in trace
    assert "-> shell" in trace
    assert "[tai trace] tai_register_block_kinds returned [] in" in trace
    assert "tai_register_providers" not in trace  # not implemented by the plugin: not called


def test_duplicate_plugin_name_is_reported(stderr: io.StringIO) -> None:
    points = [
        EntryPoint(name="shell", value="tai_kind_shell", group="tai"),
        EntryPoint(name="shell", value="tai_kind_summary", group="tai"),
    ]
    plugin_host = PluginHost(LoadOptions(), stderr=stderr)
    plugin_host.load_entry_points(points)
    statuses = [(r.name, r.status) for r in plugin_host.records if r.name == "shell"]
    assert statuses == [("shell", "loaded"), ("shell", "failed")]
    assert set(plugin_host.registry.block_kinds) == {"shell"}


def _as_pluggy_finds(host: PluginHost, plugin: object) -> dict[str, object]:
    """Each name of ``plugin`` with the hook options pluggy's own discovery gives it."""
    import pluggy

    found = {}
    for name in dir(plugin):
        found[name] = pluggy.PluginManager.parse_hookimpl_opts(host.pm, plugin, name)
    return found


def test_modules_are_discovered_as_pluggy_discovers_them(host: PluginHost) -> None:
    """The host's quicker look into a module's namespace finds exactly the hooks pluggy's
    ``getattr_static`` discovery finds, in every plugin of this installation and in a
    module with each kind of value pluggy tells apart."""
    import types

    from tai_core.plugins import find_entry_points

    odd = types.ModuleType("odd_plugin")

    class Trap:
        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"{name} was looked up on an object pluggy never asks")

    class Owner:
        @hookimpl
        def tai_enter_isolation(self, argv, cwd, config):
            return None

    @hookimpl
    def tai_block_process(block, kind, context, command):
        return None

    def tai_run_block(block, kind, context):  # no mark: not a hook implementation
        return None

    odd.__dict__.update(
        tai_block_process=tai_block_process,
        tai_run_block=tai_run_block,
        bound=Owner().tai_enter_isolation,  # a bound method carries its function's mark
        wrapped=staticmethod(tai_block_process),
        trap=Trap(),
        owner=Owner,
        number=3,
    )
    plugins = [odd, *(entry.load() for entry in find_entry_points("tai"))]
    assert len(plugins) > 30
    for plugin in plugins:
        quick = {name: host.pm.parse_hookimpl_opts(plugin, name) for name in dir(plugin)}
        assert quick == _as_pluggy_finds(host, plugin), plugin
    marked = {name for name, opts in _as_pluggy_finds(host, odd).items() if opts is not None}
    assert marked == {"tai_block_process", "bound", "wrapped"}
