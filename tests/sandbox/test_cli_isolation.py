"""Which command lines enter isolation before they run."""

from __future__ import annotations

import pytest

from tai_core.cli._main import isolated_command
from tai_core.plugins import PluginHost


@pytest.mark.parametrize(
    ("args", "isolated"),
    [
        (["next", "chat", "hi"], True),
        (["-p", "no:memory", "next", "-model", "m", "chat", "hi"], True),
        (["-no-sandbox", "next", "chat", "hi"], True),
        (["patch"], True),
        (["patch", "changes.txt"], True),
        (["next", "--help"], False),
        (["--help"], False),
        (["-h"], False),
        (["--version"], False),
        (["plugins"], False),
        (["parse", "-"], False),
        (["policy", "check", "ls"], False),
        (["sandbox", "paths"], False),
        ([], False),
        (["no-such-command"], False),
    ],
)
def test_model_commands_are_isolated(host: PluginHost, args: list[str], isolated: bool) -> None:
    assert host.cli is not None
    assert isolated_command(host.cli, args)[0] is isolated


@pytest.mark.parametrize(
    ("args", "dry"),
    [
        (["code", "-no-apply", "chat", "x"], True),
        (["-p", "no:memory", "code", "--no-apply", "-model", "m", "chat", "x"], True),
        (["code", "chat", "x"], False),
        (["patch", "-no-apply"], False),
        (["sandbox", "run", "--", "code", "-no-apply"], False),
    ],
)
def test_only_the_default_command_dry_runs_in_an_overlay(args: list[str], dry: bool) -> None:
    from tai_sandbox.isolation import dry_run

    assert dry_run(args) is dry
