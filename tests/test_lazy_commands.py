"""Commands imported only when they run: the stand-ins list what the real commands would,
a run reaches the real command, and the help imports no command module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest

from tai_core.cli import LazyCommand, build


def _stand_ins() -> list[LazyCommand]:
    group, _ = build([], cwd=Path("/"))
    return [command for command in group.commands.values() if isinstance(command, LazyCommand)]


def test_the_core_and_bundled_plugins_add_their_commands_lazily() -> None:
    names = {command.name for command in _stand_ins()}
    expected = {"ai", "code", "next", "serve", "sessions", "patch", "undo", "checkpoints", "web"}
    assert expected <= names


@pytest.mark.parametrize("limit", [30, 45, 60, 200])
def test_each_stand_in_lists_the_line_its_real_command_would(limit: int) -> None:
    for stand_in in _stand_ins():
        assert stand_in.get_short_help_str(limit) == stand_in.real.get_short_help_str(limit), (
            stand_in.name
        )


def test_a_run_reaches_the_real_command() -> None:
    calls: list[str] = []

    @click.command("greet")
    @click.argument("who")
    def greet(who: str) -> None:
        """Say hello."""
        calls.append(who)

    sys.modules[__name__].greet = greet  # type: ignore[attr-defined]
    group = click.Group("tai")
    group.add_command(LazyCommand("greet", f"{__name__}:greet", "Say hello."))
    group.main(["greet", "you"], standalone_mode=False)
    assert calls == ["you"]


def test_a_target_that_is_not_a_command_is_named() -> None:
    stand_in = LazyCommand("x", "os.path:join", "Join.")
    with pytest.raises(TypeError, match=r"os\.path:join is not a click command"):
        _ = stand_in.real


def _command_modules() -> set[str]:
    return {stand_in.target.partition(":")[0] for stand_in in _stand_ins()}


def test_the_help_imports_no_command_module(tmp_path: Path) -> None:
    probe = (
        f"COMMAND_MODULES = {sorted(_command_modules())}\n"
        "import sys\n"
        "from tai_core.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m in COMMAND_MODULES))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert "next" in result.stdout and "undo" in result.stdout  # the help was printed
    assert result.stdout.strip().splitlines()[-1] == "[]"
