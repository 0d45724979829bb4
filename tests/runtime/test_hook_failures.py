"""Every hook's failure rule, as its docstring states it and the code applies it: a plugin
registered after a well-behaved one raises from the hook, and the test checks the
documented outcome — the plugin named, no traceback, no "internal error", and only what
the hook decides lost. Runs go through the real runtime with the replay model; the policy
hooks are asked the way their callers ask them."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

from tai_core import hookimpl, hookspecs
from tai_core.events import BlockFinished
from tai_core.plugins import RULES, PluginHost
from tai_core.runtime import Notice, RunFailed, RunFinished

from .conftest import run_replay

SUMMARY = "<<紫藤 summary\n- done\n紫藤"
REPLIES = ["Part one.\n<<紫藤 continue\nnow part two\n紫藤", f"Part two.\n{SUMMARY}"]

#: Each hook's parameters, for a raising implementation of it.
PARAMETERS = {name: list(inspect.signature(getattr(hookspecs, name)).parameters) for name in RULES}


class Recorder:
    """Records every call of ``hook``; raises from it when ``raising``."""

    def __init__(self, hook: str, raising: bool) -> None:
        self.calls = 0
        self.raising = raising
        self.__name__ = "bad" if raising else "good"
        names = ", ".join(PARAMETERS[hook])
        namespace: dict[str, Any] = {}
        exec(f"def {hook}({names}):\n    return me.called()\n", {"me": self}, namespace)
        setattr(self, hook, hookimpl(namespace[hook]))

    def called(self) -> None:
        self.calls += 1
        if self.raising:
            raise RuntimeError("boom")


def pair(host: PluginHost, hook: str) -> tuple[Recorder, Recorder]:
    good, bad = Recorder(hook, raising=False), Recorder(hook, raising=True)
    assert host.register(good, "good").status == "loaded"
    assert host.register(bad, "bad").status == "loaded"
    return good, bad


def named(hook: str) -> str:
    return f"plugin 'bad': {hook} failed: RuntimeError: boom"


def no_traceback(outcome: Any) -> None:
    texts = [getattr(event, "message", "") for event in outcome.events]
    assert not any("Traceback" in text or "internal error" in text for text in texts)


def test_every_hook_has_a_rule_and_states_it() -> None:
    specs = {name for name in dir(hookspecs) if name.startswith("tai_")}
    assert set(RULES) == specs
    for name in specs:
        doc = getattr(hookspecs, name).__doc__ or ""
        assert "Failure rule: if an implementation raises" in doc or RULES[name] == "register", name


#: The observation hooks a run calls (the others: ``tai_checkpoint`` with a workspace,
#: ``tai_prepare_isolation`` on the command line; tested below).
IN_A_RUN = ["tai_session_start", "tai_session_end", "tai_turn_start", "tai_turn_end",
            "tai_round_start", "tai_round_end", "tai_after_model_call",
            "tai_schedule_tick"]  # fmt: skip


@pytest.mark.parametrize("hook", IN_A_RUN)
def test_an_observer_that_raises_is_one_warning_and_the_run_goes_on(
    host: PluginHost, tmp_path: Path, hook: str
) -> None:
    good, bad = pair(host, hook)
    interval = 0.01 if hook == "tai_schedule_tick" else 0.0
    outcome = run_replay(host, tmp_path, REPLIES, schedule_interval=interval, linger=0.05)
    assert isinstance(outcome.terminal, RunFinished)
    warnings = [e.message for e in outcome.of(Notice) if e.level == "warning"]
    assert warnings, [type(e).__name__ for e in outcome.events]
    assert named(hook) in warnings
    (warning,) = [e for e in outcome.of(Notice) if e.message == named(hook)][:1]
    session = "" if hook == "tai_schedule_tick" else outcome.session_id  # ticks: no session
    assert warning.session_id == session
    assert good.calls >= bad.calls >= 1  # the others were still called
    no_traceback(outcome)


def test_a_failing_checkpoint_plugin_costs_the_run_nothing(
    host: PluginHost, tmp_path: Path
) -> None:
    from tai_core.commands._session import open_workspace

    good, bad = pair(host, "tai_checkpoint")
    root = tmp_path / "project"
    root.mkdir()
    change = '<<紫藤 change(op="WRITE", file-path="a.txt")\nhello\n紫藤'
    workspace = open_workspace(host, {}, root)
    outcome = run_replay(host, tmp_path, [f"{change}\n{SUMMARY}"], workspace=workspace)
    assert isinstance(outcome.terminal, RunFinished), outcome.terminal
    assert (root / "a.txt").read_text() == "hello\n"
    assert named("tai_checkpoint") in [e.message for e in outcome.of(Notice)]
    assert good.calls == bad.calls >= 1
    no_traceback(outcome)


def test_a_failing_block_parsed_fails_the_attempt_which_is_retried(
    host: PluginHost, tmp_path: Path
) -> None:
    pair(host, "tai_block_parsed")
    outcome = run_replay(host, tmp_path, REPLIES * 3)
    assert isinstance(outcome.terminal, RunFailed)
    assert named("tai_block_parsed") in outcome.terminal.message
    assert any("retrying" in e.message for e in outcome.of(Notice))
    no_traceback(outcome)


def test_a_failing_validation_makes_the_block_invalid(host: PluginHost, tmp_path: Path) -> None:
    pair(host, "tai_validate_block")
    outcome = run_replay(host, tmp_path, REPLIES * 3)
    requests = outcome.runtime.state(outcome.session_id).messages
    fed_back = "\n".join(message.text for message in requests)
    assert named("tai_validate_block") in fed_back
    no_traceback(outcome)


def test_a_failing_run_block_fails_the_block_and_the_model_reads_why(
    host: PluginHost, tmp_path: Path
) -> None:
    pair(host, "tai_run_block")
    outcome = run_replay(host, tmp_path, REPLIES)
    (finished,) = [e for e in outcome.of(BlockFinished) if e.block.kind == "continue"]
    assert not finished.result.ok
    assert finished.result.text == f"continue block failed: {named('tai_run_block')}"
    no_traceback(outcome)


def test_a_failing_before_model_call_ends_the_run_before_the_call(
    host: PluginHost, tmp_path: Path
) -> None:
    pair(host, "tai_before_model_call")
    outcome = run_replay(host, tmp_path, REPLIES)
    assert isinstance(outcome.terminal, RunFailed)
    assert outcome.terminal.message == f"{named('tai_before_model_call')}; the model was not called"
    no_traceback(outcome)


def test_a_failing_secret_check_withholds(host: PluginHost) -> None:
    from tai_core.context import hook_check

    pair(host, "tai_secret_file")
    reason = hook_check(host.pm.hook, {})("notes.md", b"plain text")
    assert reason == f"not judged ({named('tai_secret_file')})"


def test_a_failing_path_policy_refuses(host: PluginHost) -> None:
    from tai_core.store._paths import host_policy

    pair(host, "tai_path_policy")
    assert host_policy(host)("a.txt", "write") == (False, named("tai_path_policy"))


def test_a_failing_shell_policy_refuses_the_command(host: PluginHost, tmp_path: Path) -> None:
    from tai_core.blocks import parse_blocks
    from tai_kind_shell import ShellKind
    from tests.conftest import run_context

    pair(host, "tai_shell_policy")
    (block,) = parse_blocks("<<甲乙 shell\ntouch made\n甲乙\n")
    result = ShellKind().execute(block, run_context(host, tmp_path, config={"shell": True}))
    assert not result.ok and named("tai_shell_policy") in result.text
    assert not (tmp_path / "made").exists()


def test_a_failing_block_process_hook_fails_the_block(host: PluginHost, tmp_path: Path) -> None:
    from tai_block_kit.run import run_captured
    from tai_core.plugins import PluginHookError
    from tests.conftest import run_context

    pair(host, "tai_block_process")
    with pytest.raises(PluginHookError, match="tai_block_process failed"):
        run_captured(["touch", "made"], tmp_path, 5, context=run_context(host, tmp_path))
    assert not (tmp_path / "made").exists()


def test_registration_failures_skip_the_plugin(host: PluginHost) -> None:
    class Failing:
        __name__ = "failing"

        @hookimpl
        def tai_register_block_kinds(self, register: Any) -> None:
            raise RuntimeError("boom")

    record = host.register(Failing(), "failing")
    assert record.status == "failed" and "RuntimeError: boom" in (record.error or "")


ISOLATION_PLUGIN = """
from tai_core import hookimpl

@hookimpl
def tai_prepare_isolation(cwd, config):
    raise RuntimeError("boom")

@hookimpl(tryfirst=True)
def tai_enter_isolation(argv, cwd, config):
    raise RuntimeError("boom")
"""


def test_isolation_hooks_fail_in_one_line_and_closed(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    from tests.conftest import run_tai
    from tests.installed import plugin_distribution

    plugin_distribution(tmp_path / "site", ISOLATION_PLUGIN, name="bad")
    work = tmp_path / "work"
    work.mkdir()
    (work / ".AI").write_text('<<甲乙 change(op="WRITE", file-path="x.txt")\nx\n甲乙\n')
    result = run_tai("patch", cwd=work, env={**isolated_env, "PYTHONPATH": str(tmp_path / "site")})
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"tai: warning: {named('tai_prepare_isolation')}",
        f"tai: error: {named('tai_enter_isolation')}",
    ]
    assert not (work / "x.txt").exists()  # nothing ran
