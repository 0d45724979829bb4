"""The generation loop through the runtime, with the replay provider as the model."""

from __future__ import annotations

import threading

import attrs
import pytest

from tai_core import BlockKind, BlockResult, hookimpl
from tai_core.runtime import (
    BlockFinished,
    Notice,
    ParseFailed,
    RoundStarted,
    RunFailed,
    RunFinished,
    TextReceived,
    UsageReported,
)
from tai_core.tree import NodeKind, outline

SUMMARY = "<<紫藤 summary\n- done\n紫藤"


def names_of_kind(tree, kind: NodeKind) -> list[str]:
    return [node.name for _, node in tree if node.kind == kind]


def test_single_round(replay) -> None:
    outcome = replay([f"All good.\n{SUMMARY}\n@@@ usage input=120 output=30"])
    finished = outcome.terminal
    assert isinstance(finished, RunFinished)
    assert finished.summary == "- done"
    assert "".join(e.text for e in outcome.of(TextReceived)).startswith("All good.")
    assert [e.usage.input for e in outcome.of(UsageReported)] == [120]
    assert "total" in finished.report
    tree = outcome.state.tree
    assert names_of_kind(tree, NodeKind.USER_INPUT) == ["user-input-1"]
    assert names_of_kind(tree, NodeKind.RESPONSE) == ["response-1"]
    assert tree.parent_of("response-1").name == "user-input-1"
    assert tree.parent_of("summary-1").name == "response-1"


def test_continue_starts_another_round_with_its_body(replay) -> None:
    outcome = replay(
        [
            "Part one.\n<<紫藤 continue\nnow part two\n紫藤",
            f"@@@ expect user: now part two\nPart two.\n{SUMMARY}",
        ]
    )
    assert isinstance(outcome.terminal, RunFinished)
    assert [e.round for e in outcome.of(RoundStarted)] == [1, 2]
    (result,) = outcome.of(BlockFinished)
    assert result.result.text == "now part two"
    feedback = outcome.state.messages[2].text
    assert feedback.startswith("now part two\n\nSession tree (")  # closed by the outline


def test_missing_summary_is_retried_from_the_snapshot(replay) -> None:
    outcome = replay(
        [
            "@@@ expect user: Do the task.\nI started but",
            f"@@@ expect user: Do the task.\nComplete.\n{SUMMARY}",
        ]
    )
    assert isinstance(outcome.terminal, RunFinished)
    assert [(e.round, e.attempt) for e in outcome.of(RoundStarted)] == [(1, 1), (1, 2)]
    messages = outcome.state.messages
    assert [m.role for m in messages] == ["user", "assistant"]  # the cut attempt is gone
    assert messages[1].text.startswith("Complete.")
    said = "the reply ended without a summary or a block that goes on; retrying"
    assert said in [e.message for e in outcome.of(Notice)]  # not "cut short": it ended


def test_a_block_of_a_kind_no_plugin_runs_is_said_not_silently_dropped(replay) -> None:
    misspelt = "Checking.\n<<紫藤 go_test\n./...\n紫藤"
    outcome = replay([misspelt], command="next", require_completion=False)
    assert isinstance(outcome.terminal, RunFinished)
    said = (
        "go_test block at line 2: no installed plugin runs go_test blocks (did you mean "
        "'go-test'?); it was passed over"
    )
    assert said in [e.message for e in outcome.of(Notice)]
    assert outcome.of(BlockFinished) == []  # passed over, not run
    assert [b.kind for b in outcome.state.remaining] == ["go_test"]  # for a goal loop


def test_a_retry_tells_the_model_which_block_no_plugin_runs(replay) -> None:
    expected = (
        "@@@ expect user: go_test block at line 2: no installed plugin runs go_test blocks "
        "(did you mean 'go-test'?); it was passed over"
    )
    outcome = replay(["Checking.\n<<紫藤 go_test\n./...\n紫藤", f"{expected}\nok\n{SUMMARY}"])
    assert isinstance(outcome.terminal, RunFinished)
    assert [(e.round, e.attempt) for e in outcome.of(RoundStarted)] == [(1, 1), (1, 2)]
    warnings = [e.message for e in outcome.of(Notice)]
    assert warnings.index(expected.removeprefix("@@@ expect user: ")) < warnings.index(
        "the reply ended without a summary or a block that goes on; retrying"
    )


def test_length_finish_is_retried_even_with_a_summary(replay) -> None:
    outcome = replay([f"{SUMMARY}\n@@@ finish length", f"Again.\n{SUMMARY}"])
    assert [(e.round, e.attempt) for e in outcome.of(RoundStarted)] == [(1, 1), (1, 2)]
    assert isinstance(outcome.terminal, RunFinished)


def test_text_answers_need_no_summary(replay) -> None:
    outcome = replay(["Just the answer."], command="next", require_completion=False)
    assert isinstance(outcome.terminal, RunFinished)
    assert len(outcome.of(RoundStarted)) == 1


def test_a_first_reply_can_answer_its_input_by_name(replay) -> None:
    """The input names its node, so a response in the very first reply has the parent it
    needs: one round, the answer recorded under the input."""
    answer = '<<紫藤 response(parent="user-input-1", name="answer")\nHi.\n紫藤\n'
    expected = "@@@ expect user: (In the session tree this input is the node user-input-1.)"
    outcome = replay([f"{expected}\n{answer}", "never sent"], command="next",
                     require_completion=False)  # fmt: skip
    assert isinstance(outcome.terminal, RunFinished)
    assert len(outcome.of(RoundStarted)) == 1
    assert outcome.state.tree.get("answer").body == "Hi."


def test_a_refused_batch_of_named_blocks_is_said_to_the_user(replay) -> None:
    answer = '<<紫藤 response(parent="task", name="answer")\nHi.\n紫藤\n'
    outcome = replay([answer, "Plain."], command="next", require_completion=False)
    assert len(outcome.of(RoundStarted)) == 2  # the model was asked again
    warnings = [e.message for e in outcome.of(Notice) if e.level == "warning"]
    assert any(w.startswith("no block of the reply ran: ") and "'task'" in w for w in warnings)


def test_a_block_written_with_a_wrong_delimiter_is_said_not_to_have_run(replay) -> None:
    """``<<EOF shell`` is text to the parser; the model meant a block, and is told, and
    writes it again."""
    expected = "@@@ expect user: delimiter 'EOF' is not two Chinese characters"
    outcome = replay(["<<EOF summary\n- done\nEOF\n", f"{expected}\n{SUMMARY}"])
    assert isinstance(outcome.terminal, RunFinished)
    assert len(outcome.of(RoundStarted)) == 2
    (failed,) = outcome.of(ParseFailed)
    assert (failed.error.kind, failed.error.line) == ("summary", 1)


def test_truncation_retries_run_out_and_the_last_reply_is_used(replay) -> None:
    outcome = replay(["cut 1", "cut 2", "cut 3", "cut 4"])
    assert len(outcome.of(RoundStarted)) == 4
    assert isinstance(outcome.terminal, RunFinished)
    assert outcome.state.messages[-1].text.startswith("cut 4")


def test_a_reply_that_ends_with_done_is_complete_without_a_summary(replay) -> None:
    outcome = replay(["All done.\n<<松柏 done\n- finished\n松柏\n", "never sent"])
    assert isinstance(outcome.terminal, RunFinished)
    assert len(outcome.of(RoundStarted)) == 1


def test_a_retry_without_a_handoff_never_repeats_the_request(replay) -> None:
    expected = "@@@ expect user: Your previous reply ended without a summary block or a block"
    outcome = replay(["cut 1", f"{expected}\nok\n{SUMMARY}"])
    assert isinstance(outcome.terminal, RunFinished)
    assert len(outcome.of(RoundStarted)) == 2


def test_no_request_larger_than_the_window_is_sent(replay) -> None:
    # a window of 1000 tokens keeps 250 for the reply: 750 for the request
    outcome = replay(["never sent"], user="x" * 3000, context_tokens=1000)
    failed = outcome.terminal
    assert isinstance(failed, RunFailed)
    assert failed.message.startswith("the next request would hold about 767 tokens, more than")
    assert (
        "the 750 tokens the model's window allows (1000 context_tokens less 250" in failed.message
    )
    assert outcome.of(UsageReported) == []  # nothing reached the model


def test_a_conversation_that_outgrows_the_window_stops_before_sending(replay) -> None:
    broken = "y" * 4400 + f"\n{PARSE_ERROR}\n{SUMMARY}"  # its feedback asks another round
    outcome = replay([broken, "never sent"], user="x" * 2000, context_tokens=2000)
    failed = outcome.terminal
    assert isinstance(failed, RunFailed) and "the next request would hold about" in failed.message
    assert len(outcome.of(UsageReported)) == 1  # the first request only


def test_an_error_without_output_ends_the_run(replay) -> None:
    outcome = replay(["@@@ error 401 invalid api key"])
    failed = outcome.terminal
    assert isinstance(failed, RunFailed)
    assert "401" in failed.message and "invalid api key" in failed.message


@pytest.mark.parametrize(
    ("replies", "said"),
    [
        (["@@@ error 401 invalid api key"], "401 invalid api key"),
        (["@@@ expect user: never sent\nText."],
         "expected the last user message to contain 'never sent'"),
        (["Part one.\n<<紫藤 continue\nmore\n紫藤"], "call 2 has no reply"),  # ran out
    ],
)  # fmt: skip
def test_a_call_the_provider_refused_ends_the_goal_loops_too(
    replay, replies: list[str], said: str
) -> None:
    failed = replay(replies).terminal
    assert isinstance(failed, RunFailed) and said in failed.message
    assert failed.final  # no next loop would mend it: a goal loop stops


def test_retryable_error_before_output_is_retried_by_the_transport(replay) -> None:
    outcome = replay(["@@@ error 503 overloaded", f"Fine now.\n{SUMMARY}"])
    assert isinstance(outcome.terminal, RunFinished)
    (notice,) = [e for e in outcome.of(Notice) if "retrying in" in e.message]
    assert (notice.session_id, notice.level) == (outcome.session_id, "warning")
    assert "503 overloaded — retrying in " in notice.message
    assert notice.message.endswith(" s (attempt 2)")
    assert [(e.round, e.attempt) for e in outcome.of(RoundStarted)] == [(1, 1)]


def test_unknown_kinds_are_remaining_blocks(replay) -> None:
    outcome = replay([f"<<松柏 frobnicate\nx\n松柏\n{SUMMARY}"])
    assert [b.kind for b in outcome.terminal.remaining] == ["frobnicate"]


PARSE_ERROR = "<<松柏 shell(x=\nls\n松柏"


def test_parse_errors_are_fed_back_within_a_budget(replay) -> None:
    broken = f"{PARSE_ERROR}\n{SUMMARY}"
    outcome = replay(
        [broken, f"@@@ expect user: Correction attempt 1 of 3\n{broken}",
         f"@@@ expect user: Correction attempt 2 of 3\n{broken}",
         f"@@@ expect user: Correction attempt 3 of 3\n{broken}", "never reached"]
    )  # fmt: skip
    assert isinstance(outcome.terminal, RunFinished)
    assert len(outcome.of(RoundStarted)) == 4
    assert any("correction budget is spent" in e.message for e in outcome.of(Notice))


def test_parse_error_budget_resets_after_a_clean_round(replay) -> None:
    broken = f"{PARSE_ERROR}\n<<竹梅 continue\ngo on\n竹梅"
    outcome = replay(
        [broken, "@@@ expect user: Correction attempt 1 of 3\n<<竹梅 continue\nclean\n竹梅",
         f"@@@ expect user: clean\n{broken}",
         f"@@@ expect user: Correction attempt 1 of 3\n{SUMMARY}"]
    )  # fmt: skip
    assert isinstance(outcome.terminal, RunFinished)


def test_invalid_blocks_are_fed_back_and_not_run(replay) -> None:
    outcome = replay(
        ["<<松柏 shell(timeout=3)\nls\n松柏\n" + SUMMARY,
         f"@@@ expect user: shell blocks take no parameter 'timeout'\n{SUMMARY}"]
    )  # fmt: skip
    assert isinstance(outcome.terminal, RunFinished)
    assert outcome.of(BlockFinished) == []


def test_duplicate_names_discard_the_whole_batch(replay) -> None:
    reply = (
        '<<松柏 continue(name="step")\nfirst\n松柏\n<<竹梅 continue(name="step")\nsecond\n竹梅\n'
    )
    outcome = replay([reply, f"@@@ expect user: discarded the whole batch\n{SUMMARY}"])
    assert isinstance(outcome.terminal, RunFinished)
    assert outcome.of(BlockFinished) == []  # neither continue ran


class Stepper(BlockKind):
    name = "stepper"
    commands = frozenset({"go"})
    triggers_round = True
    max_rounds = 1
    prompt_section = "# stepper blocks"
    restatement = "stepper"
    disabled_notice = "no"

    def execute(self, block, context):
        return BlockResult(kind=self.name, ok=True, text=f"stepped {block.body}")


class StepperPlugin:
    __name__ = "stepper"

    @hookimpl
    def tai_register_block_kinds(self, register):
        register(Stepper())


def test_per_kind_round_limit(host, replay) -> None:
    host.register(StepperPlugin(), "stepper")
    step = "<<松柏 stepper\none\n松柏"
    outcome = replay([step, f"@@@ expect user: stepped one\n{step}"])
    failed = outcome.terminal
    assert isinstance(failed, RunFailed)
    assert failed.message == "max stepper rounds (1) exceeded"


class Crasher(Stepper):
    name = "crasher"
    max_rounds = 3

    def execute(self, block, context):
        raise OSError(f"disk on fire while running {block.body}")


class CrasherPlugin:
    __name__ = "crasher"

    @hookimpl
    def tai_register_block_kinds(self, register):
        register(Crasher())


def test_a_kind_that_raises_fails_its_block_and_the_model_is_told(host, replay) -> None:
    host.register(CrasherPlugin(), "crasher")
    outcome = replay(
        [
            "<<松柏 crasher\nstep one\n松柏",
            "@@@ expect user: crasher block failed: OSError: disk on fire while running step one\n"
            f"{SUMMARY}",
        ]
    )
    assert isinstance(outcome.terminal, RunFinished)
    (finished,) = outcome.of(BlockFinished)
    assert not finished.result.ok
    assert finished.result.text == (
        "crasher block failed: OSError: disk on fire while running step one"
    )


@attrs.frozen
class Notebook:
    """A tiny immutable workspace: pending lines and what reached 'disk'."""

    lines: tuple[str, ...] = ()
    flushed: tuple[str, ...] = ()

    def flush(self) -> Notebook:
        return attrs.evolve(self, flushed=self.lines)


class Jot(BlockKind):
    name = "jot"
    streams = True
    commands = frozenset({"go"})
    prompt_section = "# jot blocks"
    restatement = "jot"
    disabled_notice = "no"

    def apply(self, block, workspace):
        if "bad" in block.body:
            raise ValueError(f"cannot jot {block.body!r}")
        return attrs.evolve(workspace, lines=(*workspace.lines, block.body))


class JotPlugin:
    __name__ = "jot"

    @hookimpl
    def tai_register_block_kinds(self, register):
        register(Jot())


def test_streaming_kind_applies_and_flushes_on_success(host, replay) -> None:
    host.register(JotPlugin(), "jot")
    outcome = replay(
        [f"<<松柏 jot\nalpha\n松柏\n<<竹梅 jot\nbeta\n竹梅\n{SUMMARY}"], workspace=Notebook()
    )
    assert outcome.state.workspace == Notebook(("alpha", "beta"), ("alpha", "beta"))
    assert [n.attrs["status"] for _, n in outcome.state.tree if n.attrs.get("kind") == "jot"] == [
        "applied", "applied",
    ]  # fmt: skip


def test_failed_apply_keeps_partial_output_and_retries(host, replay) -> None:
    host.register(JotPlugin(), "jot")
    outcome = replay(
        [f"<<松柏 jot\nalpha\n松柏\n<<竹梅 jot\nbad one\n竹梅\n{SUMMARY}",
         "@@@ expect user: All change blocks of that reply were dropped\n"
         f"<<松柏 jot\nalpha\n松柏\n<<竹梅 jot\ngood one\n竹梅\n{SUMMARY}"],
        workspace=Notebook(),
    )  # fmt: skip
    assert isinstance(outcome.terminal, RunFinished)
    assert outcome.state.workspace.flushed == ("alpha", "good one")  # no duplicate alpha
    roles = [m.role for m in outcome.state.messages]
    assert roles == ["user", "assistant", "user", "assistant"]  # partial output kept


def test_plan_entries_are_fed_until_done(replay) -> None:
    plan = (
        '<<松柏 new-plan(parent="user-input-1", name="p")\nthe plan\n松柏\n'
        '<<竹梅 plan-op(op="add", parent="p", name="s1")\nwrite tests\n竹梅\n'
        '<<蘭菊 plan-op(op="add", parent="p", name="s2")\nwrite code\n蘭菊\n' + SUMMARY
    )
    outcome = replay(
        [plan,
         "@@@ expect user: Next pending entry 's1'\n"
         f'<<松柏 plan-op(op="done", name="s1")\ntests written\n松柏\n{SUMMARY}',
         "@@@ expect user: Next pending entry 's2'\n"
         f'<<松柏 plan-op(op="done", name="s2")\ncode written\n松柏\n{SUMMARY}']
    )  # fmt: skip
    assert isinstance(outcome.terminal, RunFinished)
    assert len(outcome.of(RoundStarted)) == 3
    assert "- plan p" in outline(outcome.state.tree)


class Recorder:
    __name__ = "recorder"

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    @hookimpl
    def tai_round_start(self, round_number):
        self.calls.append(("start", round_number))

    @hookimpl
    def tai_round_end(self, round_number, outcome):
        self.calls.append(("end", round_number, outcome))

    @hookimpl
    def tai_after_model_call(self, finish_reason):
        self.calls.append(("model", finish_reason))


def test_lifecycle_hooks_see_every_round(host, replay) -> None:
    recorder = Recorder()
    host.register(recorder, "recorder")
    replay(["cut", f"Done.\n{SUMMARY}"])
    assert recorder.calls == [
        ("start", 1), ("model", "stop"), ("end", 1, "retry"),
        ("start", 1), ("model", "stop"), ("end", 1, "success"),
    ]  # fmt: skip


@pytest.mark.parametrize("handoff_text", [None, "found: the bug is in parse()"])
def test_handoff_note_after_truncation(replay, handoff_text) -> None:
    seen: list[str] = []

    async def handoff(lost: str) -> str | None:
        seen.append(lost)
        return handoff_text

    long_cut = "x" * 150
    expect = "@@@ expect user: the bug is in parse()\n" if handoff_text else ""
    outcome = replay([long_cut, f"{expect}ok\n{SUMMARY}"], handoff=handoff)
    assert isinstance(outcome.terminal, RunFinished)
    assert seen and seen[0].startswith(long_cut)


def test_a_bug_after_the_run_still_ends_it_visibly(replay) -> None:
    def broken(workspace):
        raise KeyError("oops")

    outcome = replay([f"ok\n{SUMMARY}"], workspace=Notebook(), describe=broken)
    failed = outcome.terminal
    assert isinstance(failed, RunFailed)
    assert failed.message == "internal error: KeyError: 'oops'"
    assert any("Traceback" in e.message for e in outcome.of(Notice))


class Tagger:
    __name__ = "tagger"

    def __init__(self, text: str, header: str) -> None:
        self.text, self.header = text, header

    @hookimpl
    def tai_before_model_call(self, model, messages):
        assert messages[0]["role"] == "user" and model.startswith("replay:")
        return {"system_text": self.text, "headers": {"X-Tag": self.header}}


def test_plugins_adjust_each_model_call(host, replay) -> None:
    host.register(Tagger("House rule one.", "first"), "tagger-1")
    host.register(Tagger("House rule two.", "second"), "tagger-2")
    outcome = replay([f"@@@ expect system: SYSTEM\nHouse rule one.\nHouse rule two.\n{SUMMARY}"])
    assert isinstance(outcome.terminal, RunFinished)


class BadTagger:
    __name__ = "bad-tagger"

    @hookimpl
    def tai_before_model_call(self):
        return {"temperature": 2}


def test_unknown_adjustments_fail_the_run(host, replay) -> None:
    host.register(BadTagger(), "bad-tagger")
    failed = replay([SUMMARY]).terminal
    assert isinstance(failed, RunFailed)
    assert "plugin 'bad-tagger': tai_before_model_call returned unknown keys ['temperature']" in (
        failed.message
    )


class ListTagger:
    __name__ = "list-tagger"

    @hookimpl
    def tai_before_model_call(self):
        return ["system_text", "be brief"]


def test_an_answer_that_is_no_mapping_fails_the_run_naming_the_plugin(host, replay) -> None:
    host.register(ListTagger(), "list-tagger")
    failed = replay([SUMMARY]).terminal
    assert isinstance(failed, RunFailed)
    assert "plugin 'list-tagger': tai_before_model_call returned list, not a mapping" in (
        failed.message
    )


class Ticks:
    """Counts ``tai_schedule_tick`` calls; ``twice`` is set at the second."""

    __name__ = "ticks"

    def __init__(self) -> None:
        self.count = 0
        self.twice = threading.Event()

    @hookimpl
    def tai_register_block_kinds(self, register):
        register(Slow(self))

    @hookimpl
    def tai_schedule_tick(self, now):
        assert now > 0
        self.count += 1
        if self.count == 2:
            self.twice.set()


class Slow(BlockKind):
    """A block that runs until the run has ticked twice (so the ticks come during a run)."""

    name = "slow"
    commands = frozenset({"go"})
    triggers_round = False
    prompt_section = "# slow blocks"
    restatement = "slow"
    disabled_notice = "no"

    def __init__(self, ticks: Ticks) -> None:
        self.ticks = ticks

    def execute(self, block, context):
        self.ticks.twice.wait(timeout=20)  # a hang guard: the second tick ends the wait
        return BlockResult(kind=self.name, ok=True, text="", triggers_round=False)


def test_schedule_ticks_while_a_run_goes(host, replay) -> None:
    ticks = Ticks()
    host.register(ticks, "ticks")
    outcome = replay([f"<<松柏 slow\nwait\n松柏\n{SUMMARY}"], schedule_interval=0.05)
    assert isinstance(outcome.terminal, RunFinished)
    assert ticks.twice.is_set()
    count = ticks.count
    replay([SUMMARY + "\n@@@ reply\n" + SUMMARY])  # no interval: no ticks
    assert ticks.count == count


class Big(BlockKind):
    name = "big"
    commands = frozenset({"go"})
    triggers_round = True
    prompt_section = "# big blocks"
    restatement = "big"
    disabled_notice = "no"

    def execute(self, block, context):
        return BlockResult(kind=self.name, ok=True, text="r" * 40_000, triggers_round=True)


class BigKind:
    __name__ = "big-kind"

    @hookimpl
    def tai_register_block_kinds(self, register):
        register(Big())


def test_block_results_larger_than_the_window_are_cut_with_a_note(host, replay) -> None:
    host.register(BigKind(), "big-kind")
    outcome = replay(
        [
            f"<<松柏 big\nall of it\n松柏\n{SUMMARY}",
            "@@@ expect user: [System note] The results of your blocks were about 10000 tokens\n"
            f"@@@ expect user: Ask for less at a time\nfine\n{SUMMARY}",
        ],
        context_tokens=8000,
    )
    assert isinstance(outcome.terminal, RunFinished), outcome.terminal
    assert len(outcome.of(RoundStarted)) == 2
    feedback = outcome.state.messages[2]
    assert feedback.role == "user" and len(feedback.text) < 6000 * 4


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (ValueError("cannot jot"), "ValueError: cannot jot"),  # a built-in: a bug, named
        (KeyError("k"), "KeyError: 'k'"),
        (RuntimeError(), "RuntimeError: "),
    ],
)
def test_how_an_apply_failure_is_described(error: Exception, said: str) -> None:
    from tai_core.pipeline._attempt import _describe

    assert _describe(error) == said


def test_a_kinds_own_error_speaks_for_itself() -> None:
    from tai_core.pipeline._attempt import _describe

    class JotError(Exception):
        pass

    assert _describe(JotError("the notebook is full")) == "the notebook is full"
    assert _describe(JotError()) == "JotError: "


def reshaped(monkeypatch, change) -> None:
    """Let the replay provider's streams pass through ``change(events)`` first."""
    from tai_provider_replay import ReplayProvider

    stream = ReplayProvider.stream

    def through(self, spec, request):
        return change(stream(self, spec, request))

    monkeypatch.setattr(ReplayProvider, "stream", through)


def test_a_stream_that_ends_without_a_finish_reason_counts_as_stopped(replay, monkeypatch) -> None:
    from tai_core.models import Finish

    async def without_finish(events):
        async for event in events:
            if not isinstance(event, Finish):
                yield event

    reshaped(monkeypatch, without_finish)
    outcome = replay([f"Done.\n{SUMMARY}"])
    assert isinstance(outcome.terminal, RunFinished)
    assert [row.outcome for row in outcome.state.usage_rows] == ["stop"]
    assert "finish stop" in [node.body for _, node in outcome.state.tree]


def test_a_failed_attempt_counts_the_usage_reported_before_it_failed(replay, monkeypatch) -> None:
    from tai_core.models import Usage

    async def usage_first(events):
        yield Usage(input=70, output=3)
        async for event in events:
            yield event

    reshaped(monkeypatch, usage_first)
    outcome = replay(["@@@ error 500 gone mid-reply\nHalf", f"Whole.\n{SUMMARY}"])
    assert isinstance(outcome.terminal, RunFinished)
    first = outcome.state.usage_rows[0]
    assert (first.attempt, first.usage.input, first.outcome) == (1, 70, "error")


def test_an_attempt_cut_after_output_began_is_counted_as_an_estimate(replay) -> None:
    # the stream broke mid-reply: the report that ends a stream never came, the bill will
    outcome = replay(["@@@ error 500 gone mid-reply\nHalf of a long answer", f"Whole.\n{SUMMARY}"])
    assert isinstance(outcome.terminal, RunFinished)
    first, second = outcome.state.usage_rows
    assert first.outcome == "error" and first.estimated
    assert first.usage.input > 0 and first.usage.output > 0
    assert not second.estimated
    row, _, total = [line.split() for line in outcome.terminal.report.splitlines()[1:]]
    assert row[2].startswith("~") and row[4].startswith("~") and row[-1] == "error"
    assert total[1].startswith("~")  # the totals hold an estimate too
