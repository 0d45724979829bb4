"""The testing kit for plugin authors: the scripted model's replies and faults go through
the real pipeline, and the fixtures reach a plugin's tests through the ``pytest11`` entry
point alone (checked in a pytest of its own, outside this suite's conftest)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tai_core.runtime import RunFailed
from tai_core.testing import Fault, Reply, ScriptedModel, run_session

SUMMARY = "<<松柏 summary\n- done\n松柏\n"
CONTINUE = "<<紫藤 continue\nand then\n紫藤\n"


def test_a_retryable_fault_is_retried_and_the_reply_streams_in_chunks(host, tmp_path) -> None:
    model = ScriptedModel(Fault("overloaded", status=529), Reply(f"Done.\n{SUMMARY}", chunk=3))
    run = run_session(host, model, "Do it.", cwd=tmp_path, command="any")
    assert run.finished, run.terminal
    assert len(run.requests) == 2 and run.requests[0] == run.requests[1]
    assert any("overloaded" in warning and "retrying" in warning for warning in run.warnings)
    assert run.tree is not None
    nodes, bodies = [run.tree.root], []
    while nodes:
        node = nodes.pop()
        bodies.append(node.body)
        nodes.extend(node.children)
    assert any(body.startswith("Done.") for body in bodies)  # the reply, in the tree


def test_a_fatal_fault_fails_the_run_in_one_line(host, tmp_path) -> None:
    model = ScriptedModel(Fault("invalid key", status=401, retryable=False))
    run = run_session(host, model, "Do it.", cwd=tmp_path, command="any")
    assert isinstance(run.terminal, RunFailed)
    assert "scripted scripted: 401 invalid key" in run.terminal.message
    assert len(model.requests) == 1


def test_a_session_that_asks_for_more_than_was_scripted_fails(host, tmp_path) -> None:
    model = ScriptedModel(f"One.\n{CONTINUE}")
    run = run_session(host, model, "Do it.", cwd=tmp_path, command="any")
    assert isinstance(run.terminal, RunFailed)
    assert "the script has no reply left" in run.terminal.message
    assert model.requests[1].messages[-1].text  # the continue block's result went back


def test_changes_reach_the_project_only_when_applied(host, tmp_path) -> None:
    write = '<<甲乙 change(op="WRITE", file-path="a.txt")\nhello\n甲乙\n'
    applied = run_session(host, ScriptedModel(write + SUMMARY), "Write.", cwd=tmp_path,
                          command="any")  # fmt: skip
    assert applied.finished and (tmp_path / "a.txt").read_text() == "hello\n"
    (tmp_path / "a.txt").unlink()
    dry = run_session(host, ScriptedModel(write + SUMMARY), "Write.", cwd=tmp_path,
                      command="any", apply=False)  # fmt: skip
    assert not (tmp_path / "a.txt").exists() and dry.terminal is not None


PLUGIN_TESTS = """
from tai_core import BlockKind, BlockResult, hookimpl

class Echo(BlockKind):
    name = "echo"
    commands = frozenset({"any"})
    prompt_section = "# echo blocks"
    restatement = "echo"
    disabled_notice = "no echo"
    triggers_round = False

    def execute(self, block, context):
        return BlockResult(kind="echo", ok=True, text=block.body.upper(), triggers_round=False)

class Plugin:
    __name__ = "echo_plugin"

    @hookimpl
    def tai_register_block_kinds(self, register):
        register(Echo())

def test_echo(tai_plugin, tai_model, tai_project, tai_run, tai_host):
    tai_plugin(Plugin(), "echo")
    project = tai_project({"README": "hi"}, config="shell = false\\n")
    run = tai_run(tai_model("<<甲乙 echo\\nloud\\n甲乙\\n<<丙丁 summary\\n- ok\\n丙丁\\n"), "Echo.",
                  cwd=project, command="any")
    assert run.finished and [r.text for r in run.results if r.kind == "echo"] == ["LOUD"]
    assert (project / "tai.toml").read_text() == "shell = false\\n"

def test_the_plugin_is_gone_in_the_next_test(tai_host):
    assert "echo" not in tai_host.registry.block_kinds

from pydantic import BaseModel

class Settings(BaseModel):
    word: str = "plain"

class Configured:
    __name__ = "configured_plugin"
    seen = []

    @hookimpl
    def tai_plugin_settings(self):
        return Settings

    @hookimpl
    def tai_configure(self, settings):
        self.seen.append(settings.word)

def test_settings_come_from_the_project_s_tai_toml(tai_plugin, tai_model, tai_project, tai_run):
    tai_plugin(Configured(), "configured")
    project = tai_project(config='[plugins.configured]\\nword = "fancy"\\n')
    assert tai_run(tai_model("<<甲乙 summary\\n- ok\\n甲乙\\n"), "Go.", cwd=project,
                   command="any").finished
    assert Configured.seen == ["fancy"]

import pytest

def test_an_installed_plugin_is_loaded_and_not_registered_again(tai_plugin, tai_host):
    assert tai_host.registry.block_kinds["shell"].name == "shell"
    with pytest.raises(pytest.fail.Exception, match="'shell' is loaded already .an installed"):
        tai_plugin(Plugin(), "shell")
"""


@pytest.mark.slow
def test_the_fixtures_come_with_tai_core(tmp_path: Path) -> None:
    (tmp_path / "test_echo.py").write_text(PLUGIN_TESTS)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
         "test_echo.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]
    assert "4 passed" in result.stdout


def test_contributing_s_lifecycle_example_works(host, tmp_path, monkeypatch) -> None:
    """The lifecycle plugin CONTRIBUTING.md shows, taken from it and run as written."""
    import re
    import types

    text = (Path(__file__).parent.parent / "CONTRIBUTING.md").read_text()
    (code,) = [block for block in re.findall(r"```python\n(.*?)```", text, re.S)
               if "tai_before_model_call" in block]  # fmt: skip
    plugin = types.ModuleType("lifecycle_example")
    exec(compile(code, "CONTRIBUTING.md", "exec"), plugin.__dict__)
    assert host.register(plugin, "lifecycle").status == "loaded"
    monkeypatch.chdir(tmp_path)
    model = ScriptedModel(f"Done.\n{SUMMARY}")
    run = run_session(host, model, "Do it.", cwd=tmp_path, command="any")
    assert run.finished
    assert model.requests[0].system.endswith("Write British English.")
    assert dict(model.requests[0].headers) == {"X-Team": "docs"}
    assert (tmp_path / "turns.log").read_text() == f"{run.terminal.session_id} finished \n"
