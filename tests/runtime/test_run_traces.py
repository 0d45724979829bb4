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
from tai_core.blocks import Block, BlockNotRunnableError
from tai_core.commands._session import open_workspace
from tai_core.models import Prices
from tai_core.runtime import RoundEnded, RoundStarted, TreeChanged
from tai_core.tree import Node, SessionTree

from .conftest import Outcome

TRACES = Path(__file__).parent / "traces"
SUMMARY = "<<紫藤 summary\n- done\n紫藤"
HIDDEN = {"seconds"}  # measured, not decided
SHOWN = {"tree", "usage_rows", "messages"}  # state fields with a section of their own


class Calls:
    """Every lifecycle hook call of the run, with every argument."""

    __name__ = "trace-calls"

    def __init__(self) -> None:
        self.lines: list[str] = []
        #: The distinct session views the hooks were given, rendered (listed once).
        self.sessions: list[str] = []

    def add(self, line: str, session: Any) -> None:
        view = render(session, getattr(session, "session_id", None) or "\x00none")
        if view not in self.sessions:
            self.sessions.append(view)
        self.lines.append(f"{line} session=#{self.sessions.index(view) + 1}")

    @hookimpl
    def tai_round_start(self, session: Any, round_number: int) -> None:
        self.add(f"round_start {round_number}", session)

    @hookimpl
    def tai_round_end(self, session: Any, round_number: int, outcome: str) -> None:
        self.add(f"round_end {round_number} {outcome}", session)

    @hookimpl
    def tai_before_model_call(
        self, session: Any, model: str, messages: list[dict[str, Any]]
    ) -> None:
        self.add(f"before_model_call model={model!r}", session)
        for message in messages:
            self.lines.append(f"  {message['role']}: {message['text']!r}")

    @hookimpl
    def tai_after_model_call(
        self, session: Any, model: str, finish_reason: str, usage: dict
    ) -> None:
        self.add(f"after_model_call model={model!r} {finish_reason} {usage}", session)

    @hookimpl
    def tai_block_parsed(self, block: Block, kind: BlockKind | None) -> None:
        named = kind.name if kind is not None else None
        self.lines.append(f"block_parsed {block.kind} line {block.line} kind={named}")

    @hookimpl
    def tai_checkpoint(
        self, root: str, session_id: str, round_number: int, reason: str, config: Any,
        command_id: str,
    ) -> None:  # fmt: skip
        alone = "the session's" if command_id == session_id else repr(command_id)
        self.lines.append(
            f"checkpoint {round_number} {reason} root={root} session_id={session_id!r} "
            f"config={type(config).__name__} command_id={alone}"
        )


def without_estimates(report: str) -> str:
    """``report`` with tai's estimates (``~N`` tokens: an attempt cut before the provider's
    count came) as ``~N``: they count the characters of requests that name the test's
    temporary directory, whose length differs from run to run."""
    return re.sub(r" *~\d+(?= |$)", lambda found: " " * (len(found[0]) - 2) + "~N", report,
                  flags=re.M)  # fmt: skip


def render(value: Any, session: str) -> str:
    if isinstance(value, SessionTree):
        return f"<tree of {sum(1 for _ in value)} nodes>"
    if attrs.has(type(value)):
        fields = [
            f"{field.name}={render(getattr(value, field.name), session)}"
            if field.name != "report"
            else f"report={without_estimates(without_seconds(value.report))!r}"
            for field in attrs.fields(type(value))
            if field.name not in HIDDEN
        ]
        if getattr(value, "estimated", False):  # counts of the temporary directory's length
            fields = [field if not field.startswith("usage=") else "usage=<estimated>"
                      for field in fields]  # fmt: skip
        return f"{type(value).__name__}({', '.join(fields)})"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(render(item, session) for item in value) + "]"
    if isinstance(value, float):
        return f"{value:.9f}"
    if type(value).__repr__ is object.__repr__:  # an address says nothing
        return f"<{type(value).__name__}>"
    if isinstance(value, str):
        return repr(value.replace(session, "<session>"))
    return repr(value)


def trace(outcome: Outcome, calls: Calls, tmp: Path) -> str:
    session = outcome.session_id
    lines = ["# events"]
    known: set[str] = set()
    for event in outcome.events:
        lines.append(render(event, session))
        if isinstance(event, TreeChanged):  # what the session store is told to keep
            for depth, node in event.tree:
                if node.name not in known:
                    known.add(node.name)
                    lines.append(f"  + {node_line(event.tree, node, depth)} {node.body!r}")
    lines += ["", "# hook calls", *(line.replace(session, "<session>") for line in calls.lines)]
    lines += ["", "# session views", *(f"#{n} {v}" for n, v in enumerate(calls.sessions, 1))]
    state = outcome.state
    lines += ["", "# tree"]
    for depth, node in state.tree:
        lines.append(f"{'  ' * depth}{node_line(state.tree, node, depth)}")
        lines += [f"{'  ' * depth}| {line}" for line in node.body.splitlines()]
    lines += ["", "# usage rows", *(render(row, session) for row in state.usage_rows)]
    lines += ["", "# messages", *(f"{m.role}: {m.text!r}" for m in state.messages)]
    lines += ["", "# the rest of the state"]
    lines += [
        f"{field.name}={render(getattr(state, field.name), session)}"
        if field.name != "workspace"
        else f"workspace=<{type(state.workspace).__name__}>"
        for field in attrs.fields(type(state))
        if field.name not in SHOWN
    ]
    text = "\n".join(lines) + "\n"
    text = text.replace(str(tmp), "<tmp>")
    return re.sub(r"\.error-log\.\d{8}-\d{6}(-\d+)?\.xml", ".error-log.<time>.xml", text)


def node_line(tree: SessionTree, node: Node, depth: int) -> str:
    parent = tree.parent_of(node.name)
    under = f" under {parent.name}" if parent is not None else ""
    return f"{node.name} {node.kind.value} {dict(sorted(node.attrs.items()))}{under}"


def without_seconds(table: str) -> str:
    """The usage table with its Seconds column blanked (measured, not decided)."""
    lines = table.splitlines()
    start = lines[0].find("Seconds") if lines else -1
    if start < 0:
        return table
    end = start + len("Seconds")
    rows = [line[:start] + "-" * (end - start) + line[end:] for line in lines[1:]]
    return "\n".join([lines[0], *rows])


def paired(outcome: Outcome, calls: Calls) -> None:
    """Every attempt that started ended once, as an event and as a hook call."""
    events = [
        "start" if isinstance(event, RoundStarted) else "end"
        for event in outcome.events
        if isinstance(event, RoundStarted | RoundEnded)
    ]
    hooks = [
        "start" if line.startswith("round_start") else "end"
        for line in calls.lines
        if line.startswith(("round_start", "round_end"))
    ]
    for marks in (events, hooks):
        assert len(marks) % 2 == 0 and marks == ["start", "end"] * (len(marks) // 2), marks


def check(name: str, outcome: Outcome, calls: Calls, tmp: Path) -> None:
    paired(outcome, calls)
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
            "@@@ usage input=130 cache_read=100 output=50\n@@@ finish length\n@@@ chunk 8\n"
            "@@@ thought: Two steps: find, then replace.\nFixing it, and",
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


class TraceKind(BlockKind):
    """A kind of these runs: offered in ``go``, its prompt parts named after it."""

    commands = frozenset({"go"})
    disabled_notice = "no"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.prompt_section = f"# {cls.name} blocks"
        cls.restatement = cls.name


class Runner(TraceKind):
    """A kind that runs programs (a checkpoint comes first) and triggers a round, once."""

    name = "runner"
    triggers_round = True
    runs_programs = True
    max_rounds = 2

    def execute(self, block: Block, context: object) -> BlockResult:
        ran = f"ran {block.body} for {context.command}"  # type: ignore[attr-defined]
        return BlockResult(kind=self.name, ok="fail" not in block.body, text=ran)


class Quiet(TraceKind):
    """A kind that runs but says nothing: no round follows it."""

    name = "quiet"

    def execute(self, block: Block, context: object) -> BlockResult:
        if block.body == "speak":  # a result that asks for a round of its own
            return BlockResult(kind=self.name, ok=True, text="spoken", triggers_round=True)
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
    from tai_provider_replay import ReplayProvider

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
            f"<<松柏 runner\ntest\n松柏\n<<竹梅 quiet\nspeak\n竹梅\n{SUMMARY}",
            "<<松柏 runner\nagain\n松柏\n",  # the third round of runner: too many
        ],
        workspace=Formatting(),
        spec_changes={"temperature": 0.25, "max_generate_tokens": 900, "reasoning_effort": "low"},
    )
    calls.lines += ["", "# requests", *sent]
    check("programs", outcome, calls, tmp_path)


@attrs.frozen
class Stamps:
    """A workspace that only collects what ``stamp`` blocks put in it."""

    stamps: tuple[str, ...] = ()


class Unrunnable(Exception):
    """An apply failure that retrying cannot cure."""

    retryable = False


class Stamp(TraceKind):
    """A streaming kind: applied to the workspace while the reply streams, failing in
    every way an apply can (a validation problem, not runnable here, a bug, fatal)."""

    name = "stamp"
    streams = True

    def check_body(self, block: Block) -> list[str]:
        return ["a stamp must not say invalid"] if block.body == "invalid" else []

    def apply(self, block: Block, workspace: Stamps) -> Stamps:
        if block.body == "elsewhere":
            raise BlockNotRunnableError("stamps are kept elsewhere")
        if block.body == "bug":
            raise KeyError("ink")
        if block.body == "fatal":
            raise Unrunnable("the stamp pad is gone")
        return Stamps((*workspace.stamps, block.body))


class Checked(TraceKind):
    """A kind that runs after the reply and finds fault with every block."""

    name = "checked"

    def check_body(self, block: Block) -> list[str]:
        return [f"checked blocks are always wrong ({block.body})"]


class Kinds:
    __name__ = "trace-kinds"

    @hookimpl
    def tai_register_block_kinds(self, register) -> None:
        register(Stamp())
        register(Checked())


def stamp(delimiter: str, body: str) -> str:
    return f"<<{delimiter} stamp\n{body}\n{delimiter}\n"


def test_streaming_blocks_that_fail_to_apply_then_blocks_past_the_correction_budget(
    host, replay, calls, tmp_path
) -> None:
    """A streaming kind that fails validation, is not runnable here, and raises a bug's
    exception (each attempt retried with the reason), then applies; beside it in the
    successful reply: a malformed block, two blocks of a kind switched off, an unknown
    kind and an invalid block (fed back, the correction budget of one spent), then a
    malformed block again (noted, kept)."""
    host.register(Kinds(), "trace-kinds")
    after = (
        "<<蘭菊 continue\nnot today\n蘭菊\n<<梧桐 shell(x=\nls\n梧桐\n"
        "<<桃李 continue\nnor now\n桃李\n<<荷蓮 unheard-of\nx\n荷蓮\n"
        "<<芝蘭 checked\ncolour\n芝蘭\n"
    )
    outcome = replay(
        [
            stamp("松柏", "invalid"),
            f"Again.\n{stamp('松柏', 'elsewhere')}",
            f"Once more.\n{stamp('松柏', 'bug')}",
            "@@@ chunk 4096\n"  # one piece: the parser hands over every block at once
            f"Now.\n{stamp('松柏', 'first')}{stamp('竹梅', 'second')}{after}{SUMMARY}",
            f"Still.\n<<梧桐 shell(y=\nls\n梧桐\n{SUMMARY}",
        ],
        workspace=Stamps(),
        run_options={"parse_error_budget": 1, "disabled": frozenset({"continue"})},
    )
    assert outcome.state.workspace == Stamps(("first", "second"))
    check("streaming", outcome, calls, tmp_path)


def test_provider_errors_after_output_are_retried_and_a_fatal_apply_ends_the_run(
    host, replay, calls, tmp_path
) -> None:
    """A provider error after a thought, and one after text, are retried like a failed
    block; a stamp whose apply failure cannot be retried ends the run at once, naming the
    block (the attempt counted, its round ended)."""
    host.register(Kinds(), "trace-kinds")
    outcome = replay(
        [
            "@@@ thought: Thinking first.\n@@@ error 502 the gateway gave up",
            "@@@ error 500 the server broke mid-reply\nHalf a repl",
            f"Whole.\n{stamp('松柏', 'fatal')}",
            "never asked",
        ],
        workspace=Stamps(),
    )
    check("fatal", outcome, calls, tmp_path)


def test_transport_retries_follow_the_run_s_retry_policy(replay, calls, tmp_path) -> None:
    """Two refused calls (rate limited) are repeated by the transport, with a notice each;
    a call refused for good (bad request) ends the run without a round's retries."""
    outcome = replay(
        [
            "@@@ error 429 slow down",
            "@@@ error 503 busy",
            "<<松柏 continue\nnext\n松柏\n",
            "@@@ error 400 no such model",
        ],
    )
    check("transport", outcome, calls, tmp_path)


def test_a_reply_cut_short_on_every_attempt_is_used_and_unapplied_streaming_blocks_kept(
    host, replay, calls, tmp_path
) -> None:
    """Without a workspace a stamp block is left unapplied (kept as remaining); in the
    round after it, every attempt is cut by its length limit, and the last is used."""
    host.register(Kinds(), "trace-kinds")
    outcome = replay(
        [
            f"{stamp('松柏', 'nowhere')}<<竹梅 continue\non\n竹梅\n",
            "@@@ finish length\nPart",
            "@@@ finish max_tokens\nPart two",
        ],
        handoff=None,
        run_options={"max_retries": 1},
    )
    check("cut", outcome, calls, tmp_path)


def test_a_dry_run_keeps_changes_in_memory_and_a_switched_off_streaming_kind_is_fed_back(
    host, replay, calls, tmp_path
) -> None:
    """With flushing off (``-no-apply``) the change stays in the workspace and the file on
    disk as it was; a stamp block, its kind switched off, is not applied but fed back."""
    host.register(Kinds(), "trace-kinds")
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("old\n")
    change = '<<竹梅 change(op="REPLACE", find="old", file-path="README.md")\nnew\n竹梅\n'
    outcome = replay(
        [f"{stamp('松柏', 'off')}{change}{SUMMARY}", SUMMARY],
        workspace=open_workspace(host, {}, root),
        run_options={"flush": False, "disabled": frozenset({"stamp"})},
    )
    assert (root / "README.md").read_text() == "old\n"
    assert [change.path for change in outcome.state.workspace.pending()] == ["README.md"]
    check("dry", outcome, calls, tmp_path)
