"""Whole runs, written down: for a few scripted runs, everything the generation loop makes
observable — every event with every field, every request as the model would receive it,
every lifecycle hook call, the session tree and the usage rows — rendered as text and
compared with a reviewed trace in ``traces/``. The other pipeline tests check one rule each;
these catch the change nobody thought to check (a field left out, a note's words, a retry
that starts from the wrong state).

A difference is a failure that shows the two traces. When behaviour is meant to change,
regenerate with ``TAI_REGENERATE_TRACES=1`` and review the diff as part of the change."""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Any

import attrs
import pytest

from tai_core import BlockKind, BlockResult, hookimpl
from tai_core.blocks import Block
from tai_core.commands._session import open_workspace
from tai_core.models import Prices
from tai_core.tree import SessionTree

from .conftest import Outcome

TRACES = Path(__file__).parent / "traces"
SUMMARY = "<<紫藤 summary\n- done\n紫藤"
HIDDEN = {"seconds"}  # measured, not decided


class Calls:
    """Every lifecycle hook call of the run, with its arguments."""

    __name__ = "trace-calls"

    def __init__(self) -> None:
        self.lines: list[str] = []

    @hookimpl
    def tai_round_start(self, round_number: int) -> None:
        self.lines.append(f"round_start {round_number}")

    @hookimpl
    def tai_round_end(self, round_number: int, outcome: str) -> None:
        self.lines.append(f"round_end {round_number} {outcome}")

    @hookimpl
    def tai_before_model_call(self, model: str, messages: list[dict[str, Any]]) -> None:
        self.lines.append(f"before_model_call model={model!r}")
        for message in messages:
            self.lines.append(f"  {message['role']}: {message['text']!r}")

    @hookimpl
    def tai_after_model_call(self, model: str, finish_reason: str, usage: dict) -> None:
        self.lines.append(f"after_model_call model={model!r} {finish_reason} {usage}")

    @hookimpl
    def tai_checkpoint(self, round_number: int, reason: str) -> None:
        self.lines.append(f"checkpoint {round_number} {reason}")


def render(value: Any, session: str) -> str:
    if isinstance(value, SessionTree):
        return f"<tree of {sum(1 for _ in value)} nodes>"
    if attrs.has(type(value)):
        fields = [
            f"{field.name}={render(getattr(value, field.name), session)}"
            if field.name != "report"
            else f"report={without_seconds(value.report)!r}"
            for field in attrs.fields(type(value))
            if field.name not in HIDDEN
        ]
        return f"{type(value).__name__}({', '.join(fields)})"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(render(item, session) for item in value) + "]"
    if isinstance(value, float):
        return f"{value:.9f}"
    if isinstance(value, str):
        return repr(value.replace(session, "<session>"))
    return repr(value)


def trace(outcome: Outcome, calls: Calls, tmp: Path) -> str:
    session = outcome.session_id
    lines = ["# events"]
    lines += [render(event, session) for event in outcome.events]
    lines += ["", "# hook calls", *(line.replace(session, "<session>") for line in calls.lines)]
    state = outcome.state
    lines += ["", "# tree"]
    for depth, node in state.tree:
        lines.append(
            f"{'  ' * depth}{node.name} {node.kind.value} {dict(sorted(node.attrs.items()))}"
        )
        lines += [f"{'  ' * depth}| {line}" for line in node.body.splitlines()]
    lines += ["", "# usage rows", *(render(row, session) for row in state.usage_rows)]
    lines += ["", "# messages", *(f"{m.role}: {m.text!r}" for m in state.messages)]
    text = "\n".join(lines) + "\n"
    text = text.replace(str(tmp), "<tmp>")
    return re.sub(r"\.error-log\.\d{8}-\d{6}(-\d+)?\.xml", ".error-log.<time>.xml", text)


def without_seconds(table: str) -> str:
    """The usage table with its Seconds column blanked (measured, not decided)."""
    lines = table.splitlines()
    start = lines[0].find("Seconds") if lines else -1
    if start < 0:
        return table
    end = start + len("Seconds")
    rows = [line[:start] + "-" * (end - start) + line[end:] for line in lines[1:]]
    return "\n".join([lines[0], *rows])


def check(name: str, outcome: Outcome, calls: Calls, tmp: Path) -> None:
    path = TRACES / f"{name}.txt"
    made = trace(outcome, calls, tmp)
    if os.environ.get("TAI_REGENERATE_TRACES"):
        TRACES.mkdir(exist_ok=True)
        path.write_text(made, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    if made != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), made.splitlines(), "reviewed", "now", lineterm=""
        )
        pytest.fail(f"the run's trace changed ({path.name}):\n" + "\n".join(diff))


@pytest.fixture
def calls(host) -> Calls:
    recorder = Calls()
    host.register(recorder, recorder.__name__)
    return recorder


def test_a_failed_attempt_then_a_cut_reply_then_success(host, replay, calls, tmp_path) -> None:
    """Attempt 1 streams a change that cannot apply (retried with its output and a note),
    attempt 2 is cut by its length limit (retried from the snapshot, with a handoff),
    attempt 3 writes the change and ends the run; priced usage on every attempt."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("# calc\n\nSubtracts.\n")

    async def handoff(text: str) -> str:
        return f"handed over: {len(text)} characters so far"

    bad = '<<松柏 change(op="REPLACE", find="Divides.", file-path="README.md")\nAdds.\n松柏\n'
    good = '<<竹梅 change(op="REPLACE", find="Subtracts.", file-path="README.md")\nAdds.\n竹梅\n'
    outcome = replay(
        [
            f"@@@ usage input=100 output=10\n@@@ chunk 40\nFixing the README.\n{bad}",
            "@@@ usage input=130 cache_read=100 output=50\n@@@ finish length\nFixing it, and",
            f"@@@ usage input=140 cache_read=120 cache_write=10 output=30 reasoning=5\n"
            f"@@@ thought: Replace the right sentence.\n@@@ chunk 64\nNow right.\n{good}{SUMMARY}",
        ],
        workspace=open_workspace(host, {}, root),
        handoff=handoff,
        prices=Prices(input=2.0, output=8.0, cache_read=0.5),
    )
    assert (root / "README.md").read_text() == "# calc\n\nAdds.\n"
    check("retries", outcome, calls, tmp_path)


def test_rounds_driven_by_blocks_parse_errors_and_a_plan(replay, calls, tmp_path) -> None:
    """A continue block with a malformed block beside it (feedback within its budget), a
    plan of two entries fed one after the other, replies without blocks while an entry is
    open (fed again, until the limit)."""
    plan = (
        '<<松柏 new-plan(parent="user-input-1", name="p")\nthe plan\n松柏\n'
        '<<竹梅 plan-op(op="add", parent="p", name="s1")\nwrite tests\n竹梅\n'
        '<<蘭菊 plan-op(op="add", parent="p", name="s2")\nwrite code\n蘭菊\n'
    )
    outcome = replay(
        [
            "Looking.\n<<松柏 continue\ngo on with the plan\n松柏\n<<竹梅 shell(x=\nls\n竹梅\n",
            f"Planning.\n{plan}",
            '<<松柏 plan-op(op="done", name="s1")\ntests written\n松柏\n',
            "Still on s2.",
            "Still on s2, really.",
            "Not yet.",
        ],
        require_completion=False,
        run_options={"parse_error_budget": 1},
    )
    check("rounds", outcome, calls, tmp_path)


def test_a_round_that_fails_every_attempt_ends_the_run(host, replay, calls, tmp_path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("text\n")
    bad = '<<松柏 change(op="REPLACE", find="missing", file-path="README.md")\nx\n松柏\n'
    outcome = replay(
        [f"@@@ usage input=10 output=2\nTry {n}.\n{bad}" for n in (1, 2, 3)],
        workspace=open_workspace(host, {}, root),
        run_options={"max_retries": 2},
    )
    assert (root / "README.md").read_text() == "text\n"
    rows = outcome.terminal.report.splitlines()[1:-1]
    assert [row.split()[:2] + row.split()[-1:] for row in rows] == [
        ["1", str(n), "error"] for n in (1, 2, 3)
    ]  # the failed run's table lists the attempts it made
    check("failure", outcome, calls, tmp_path)


def test_feedback_too_large_for_the_window_is_cut_and_rounds_are_limited(
    replay,
    calls,
    tmp_path: Path,
) -> None:
    big = "word " * 3000
    outcome = replay(
        [f"Here.\n<<松柏 continue\n{big}\n松柏\n", "<<松柏 continue\nmore\n松柏\n", "never sent"],
        context_tokens=6000,
        run_options={"max_rounds": 2},
        require_completion=False,
    )
    check("window", outcome, calls, tmp_path)


class Runner(BlockKind):
    """A kind that runs programs (a checkpoint comes first) and triggers a round, once."""

    name = "runner"
    commands = frozenset({"go"})
    triggers_round = True
    runs_programs = True
    max_rounds = 2
    prompt_section = "# runner blocks"
    restatement = "runner"
    disabled_notice = "no"

    def execute(self, block: Block, context: object) -> BlockResult:
        return BlockResult(kind=self.name, ok="fail" not in block.body, text=f"ran {block.body}")


class Quiet(BlockKind):
    """A kind that runs but says nothing: no round follows it."""

    name = "quiet"
    commands = frozenset({"go"})
    prompt_section = "# quiet blocks"
    restatement = "quiet"
    disabled_notice = "no"

    def execute(self, block: Block, context: object) -> BlockResult:
        return BlockResult(kind=self.name, ok=True, text="")


class Adjuster:
    """Kinds, and a plugin that adds a system text and headers to every call."""

    __name__ = "trace-adjuster"

    def __init__(self, name: str) -> None:
        self.name = name

    @hookimpl
    def tai_register_block_kinds(self, register) -> None:
        if self.name == "first":
            register(Runner())
            register(Quiet())

    @hookimpl
    def tai_before_model_call(self) -> dict[str, Any]:
        return {"system_text": f"House rule of {self.name}.", "headers": {"x-rule": self.name}}


class Formatting:
    """A workspace whose round end (formatting) fails the first time only."""

    def __init__(self) -> None:
        self.refusals = ["gofmt refused main.go: expected declaration"]

    def finished(self) -> Formatting:
        if self.refusals:
            raise ValueError(self.refusals.pop())
        return self

    def flush(self) -> Formatting:
        return self


def test_kinds_that_run_programs_plugin_adjustments_and_a_failing_finish(
    host,
    replay,
    calls,
    tmp_path,
    monkeypatch,
) -> None:
    """Two runner blocks and a quiet one in a round (one checkpoint before them, the
    runner counted once per round, until its limit ends the run), plugins adding system
    text and headers in order, the model's settings on every request, and a workspace that
    refuses to finish once."""
    from tai_providers.replay import ReplayProvider

    host.register(Adjuster("first"), "trace-adjuster-1")
    host.register(Adjuster("second"), "trace-adjuster-2")
    sent: list[str] = []
    stream = ReplayProvider.stream

    def recording(self, spec, request):
        sent.append(render(request, "\x00no session here"))
        return stream(self, spec, request)

    monkeypatch.setattr(ReplayProvider, "stream", recording)
    blocks = "<<松柏 runner\nmake\n松柏\n<<竹梅 quiet\nx\n竹梅\n<<蘭菊 runner\nmake fail\n蘭菊\n"
    outcome = replay(
        [
            blocks,
            f"Formatted now.\n{blocks}",
            f"<<松柏 runner\ntest\n松柏\n{SUMMARY}",  # the third round of runner: too many
        ],
        workspace=Formatting(),
        spec_changes={"temperature": 0.25, "max_generate_tokens": 900, "reasoning_effort": "low"},
    )
    calls.lines += ["", "# requests", *sent]
    check("programs", outcome, calls, tmp_path)
