"""The plugins' session commands (``/NAME args``): registered through their hook, checked
like every contract, run by the runtime's ``RunExtensionCommand`` in a worker thread, their
output an event, their failure one line naming the plugin — and typed in ``tai ai``."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from tai_core import hookimpl
from tai_core.plugins import PluginHost, SessionCommand
from tai_core.runtime import (
    EventBus,
    ExtensionCommandFinished,
    Notice,
    RunExtensionCommand,
    Runtime,
    StartSession,
)
from tests.conftest import run_tai
from tests.installed import plugin_distribution


class Commands:
    __name__ = "commands_plugin"

    def __init__(self, *commands: SessionCommand) -> None:
        self.commands = commands

    @hookimpl
    def tai_register_session_commands(self, register: Any) -> None:
        for command in self.commands:
            register(command)


def greet(session: Any, args: str) -> str:
    return f"hello {args or 'you'} from session {session.session_id}"


def broken(session: Any, args: str) -> str:
    raise LookupError("no ticket " + args)


def run(host: PluginHost, tmp_path: Path, *commands: RunExtensionCommand) -> list[Any]:
    """Run ``commands`` in a new session; the events about them."""
    from tai_core.commands._session import make_setup
    from tai_core.testing import ScriptedModel

    model = ScriptedModel()
    setup = make_setup(host, {}, (model, model.spec("m", {}, {}, {})), command="ai",
                       system="", require_completion=False, cwd=tmp_path)  # fmt: skip
    session_id = setup.options.session_id

    async def scenario() -> list[Any]:
        runtime = Runtime(host.pm.hook, EventBus(), extensions=host.registry.extensions())
        subscription = runtime.bus.subscribe()
        runtime.handle(StartSession(setup))
        for command in commands:
            runtime.handle(RunExtensionCommand(session_id, command.name, command.args))
        await runtime.settle()
        events = subscription.take_pending()
        await runtime.shutdown()
        return [e for e in events if isinstance(e, ExtensionCommandFinished | Notice)]

    return [(e, session_id) for e in asyncio.run(scenario())]


def test_commands_run_and_say_what_they_have_to_say(host: PluginHost, tmp_path: Path) -> None:
    plugin = Commands(SessionCommand("greet", "Say hello.", greet),
                      SessionCommand("ticket", "Fetch a ticket.", broken))  # fmt: skip
    assert host.register(plugin, "greeter").status == "loaded"
    assert host.record("greeter").registers["session_commands"] == ["greet", "ticket"]
    found = run(host, tmp_path, RunExtensionCommand("", "greet", "Ada"),
                RunExtensionCommand("", "/help"), RunExtensionCommand("", "ticket", "T-1"),
                RunExtensionCommand("", "nope"))  # fmt: skip
    session_id = found[0][1]
    said = {(type(e).__name__, getattr(e, "name", ""), getattr(e, "output", "") or e.message)
            for e, _ in found}  # fmt: skip
    assert said == {
        ("ExtensionCommandFinished", "greet", f"hello Ada from session {session_id}"),
        ("ExtensionCommandFinished", "help",
         "/greet — Say hello.\n/ticket — Fetch a ticket.\n/help — this list"),
        ("Notice", "", "plugin 'greeter': /ticket failed: LookupError: no ticket T-1"),
        ("Notice", "", "no command /nope (/help lists them)"),
    }  # fmt: skip


def test_a_command_that_breaks_the_contract_is_a_load_error(host: PluginHost) -> None:
    record = host.register(Commands(SessionCommand("two words", "x", greet)), "bad")
    assert record.status == "failed"
    assert "name must be a word without '/', not help, reload, compact or agent" in (
        record.error or ""
    )
    for reserved in ("help", "reload", "compact"):  # the front-ends' own
        kept = host.register(Commands(SessionCommand(reserved, "mine", greet)), f"own-{reserved}")
        assert kept.status == "failed" and "not help, reload, compact or agent" in (
            kept.error or ""
        )
    taken = host.register(Commands(SessionCommand("greet", "x", greet)), "first")
    again = host.register(Commands(SessionCommand("greet", "y", greet)), "second")
    assert taken.status == "loaded" and again.status == "failed"
    assert "session command 'greet' is already registered by 'first'" in (again.error or "")


PLUGIN = """
from tai_core import hookimpl
from tai_core.plugins import SessionCommand

def status(session, args):
    return "status of " + session.command + (": " + args if args else "") + "\\x1b[31m"

@hookimpl
def tai_register_session_commands(register):
    register(SessionCommand("status", "Show the status.", status))
"""


def test_typed_in_tai_ai(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    plugin_distribution(tmp_path / "site", PLUGIN, name="status")
    work = tmp_path / "work"
    work.mkdir()
    (work / "none.replay").write_text("@@@ reply\nnever asked\n")
    env = {**isolated_env, "PYTHONPATH": str(tmp_path / "site"), "TAI_NO_SANDBOX": "1"}
    result = run_tai("-p", "no:agents", "ai", "-model", "replay:none.replay", cwd=work,
                     env=env, stdin="/status now\n/help\n/missing\n/reload\n")  # fmt: skip
    assert result.returncode == 0, result.stderr
    *said, reloaded = result.stdout.splitlines()
    assert said == [
        "status of ai: now\\x1b[31m",  # the escape sequence shown, not sent to the terminal
        "/status — Show the status.",
        "/help — this list",
        "/reload — read the configuration and the installed plugins again",
        "/compact [what to keep] — replace the conversation by its summary",
    ]
    assert re.fullmatch(r"reloaded: \d+ plugins", reloaded)
    assert "tai: error: no command /missing (/help lists them)" in result.stderr
    listed = run_tai("plugins", cwd=work, env=env)  # how an author checks the plugin
    assert listed.returncode == 0, listed.stderr
    assert re.search(r"^status +status-plugin 1\.0 +session commands: status$", listed.stdout,
                     re.M)  # fmt: skip


def test_a_reload_waits_for_no_turn_and_keeps_everything_when_it_fails(
    host: PluginHost, tmp_path: Path
) -> None:
    from tai_core.commands._session import make_setup
    from tai_core.models import Finish, TextDelta
    from tai_core.runtime import ExtensionsReloaded, Reloaded, ReloadExtensions, Submit
    from tai_core.testing import ScriptedModel

    release = asyncio.Event()

    class Slow(ScriptedModel):
        async def stream(self, spec: Any, request: Any) -> Any:
            yield TextDelta("thinking…")
            await release.wait()
            yield Finish("stop")

    model = Slow()
    setup = make_setup(host, {}, (model, model.spec("m", {}, {}, {})), command="ai",
                       system="", require_completion=False, cwd=tmp_path)  # fmt: skip
    attempts: list[str] = []

    def reload() -> Reloaded:
        attempts.append("reload")
        if len(attempts) == 1:
            raise ValueError("tai.toml:3: unknown key 'modle'")
        return Reloaded(hook=host.pm.hook, extensions={}, rebind=lambda s: s,
                        plugins=("shell",), problems=("plugin 'x' was skipped: boom",))  # fmt: skip

    async def scenario() -> list[Any]:
        runtime = Runtime(host.pm.hook, EventBus(), reload=reload)
        subscription = runtime.bus.subscribe()
        session_id = setup.options.session_id
        runtime.handle(StartSession(setup))
        runtime.handle(Submit(session_id, "go", "go"))
        while not any(type(e).__name__ == "TextReceived" for e in subscription.take_pending()):
            await asyncio.sleep(0.01)
        runtime.handle(ReloadExtensions())  # refused: a turn runs
        release.set()
        await runtime.wait(session_id)
        runtime.handle(ReloadExtensions())  # the reload function fails: nothing changes
        runtime.handle(ReloadExtensions())
        events = subscription.take_pending()
        await runtime.shutdown()
        return [e for e in events if isinstance(e, Notice | ExtensionsReloaded)]

    said = [getattr(e, "message", e) for e in asyncio.run(scenario())]
    assert said == [
        f"session(s) {setup.options.session_id} running: reload when they end",
        "the extensions were not reloaded: tai.toml:3: unknown key 'modle'",
        "plugin 'x' was skipped: boom",
        ExtensionsReloaded(("shell",), ("plugin 'x' was skipped: boom",)),
    ]
    assert attempts == ["reload", "reload"]


def test_an_unknown_command_gets_the_nearest_names() -> None:
    from tai_core.plugins import AgentCommand
    from tai_core.runtime import EventBus
    from tai_core.runtime._extensions import Extensions

    plan = AgentCommand("plan", "Plan.", render=lambda data: "")
    known = Extensions({"greet": ("p", object())}, EventBus(), lambda: {"plan": plan})
    assert known.unknown("gret") == "no command /gret (did you mean /greet? /help lists them)"
    assert known.unknown("plna") == "no command /plna (did you mean /plan? /help lists them)"
    assert known.unknown("xyz") == "no command /xyz (/help lists them)"
