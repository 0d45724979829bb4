"""The generation loop: rounds over immutable state until nothing triggers another.

A round is: build the request from the state, run an attempt (stream, parse, apply
streaming kinds to the in-memory workspace), decide. A failed attempt is retried from the
snapshot taken before the round (with the partial output and a note when the failure came
after output; with a handoff note after a truncation); a successful one is flushed to disk,
written to the session tree, and its blocks run — round-triggering kinds first, in the
protocol's order — and their results, parse-error feedback within its budget, a rejected
block batch or the next pending plan entry become the next round's user content, closed by
the session-tree outline. When nothing triggers, the run ends. No request larger than the
model's window is sent (:mod:`tai_core.models._window`): the run fails with the figures
instead, and a goal loop starts afresh from the files.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Awaitable, Callable
from typing import Any

import attrs

from tai_core.blocks import Block, RunContext
from tai_core.events import (
    ChangesWritten,
    Notice,
    RoundEnded,
    RoundStarted,
    TreeChanged,
    UsageReported,
)
from tai_core.models import (
    GenerationRequest,
    Message,
    ModelSpec,
    Provider,
    ProviderError,
    Usage,
    estimate_tokens,
    request_tokens,
    window_of,
)
from tai_core.pipeline import _notes as notes
from tai_core.pipeline._answers import call_changes
from tai_core.pipeline._attempt import AttemptRunner, applies
from tai_core.pipeline._execute import BlockExecutor
from tai_core.pipeline._record import DONE, RECORDED, SUMMARY, next_plan_entry, record_reply
from tai_core.pipeline._report import usage_table
from tai_core.pipeline._state import (
    Attempt,
    BlockApplyError,
    CallRefused,
    FlushRefused,
    RunError,
    RunOptions,
    RunState,
    UsageRow,
    WorkspaceError,
)
from tai_core.pipeline._steer import Steering, interrupted, with_steering
from tai_core.plugins._failures import PluginHookError
from tai_core.plugins._observe import named_answers, observe
from tai_core.tree import NodeKind, NodeSpec, SessionTree, outline

#: Finish reasons that mean the reply was cut by its length limit.
LENGTH_FINISHES = frozenset({"length", "max_tokens"})
#: A reply retried from the snapshot, by verdict: what the user is told at a retry and
#: when no retry is left, what the session tree records. Cut by the length limit; or ended
#: without a summary or a block that goes on (a provider that cuts a reply without saying
#: so leaves one like that too).
SHORT = {
    "truncated": (
        "the reply was cut short",
        "the reply was still cut short after every retry",
        "reply cut short",
    ),
    "incomplete": (
        "the reply ended without a summary or a block that goes on",
        "every retry too ended without a summary or a block that goes on",
        "reply without a summary",
    ),
}
#: Tokens kept free when block results are cut to fit the window (separators, plugins).
FEEDBACK_SLACK = 256
#: How often one plan entry is handed to the model before the run stops feeding it.
PLAN_FEED_LIMIT = 3

Handoff = Callable[[str], Awaitable[str | None]]


@attrs.frozen
class RunResult:
    """What a finished run leaves: its final state and the rendered usage table."""

    state: RunState
    report: str


class Pipeline:
    """Runs rounds for one session until nothing triggers another."""

    def __init__(
        self,
        *,
        runner: AttemptRunner,
        context: RunContext,
        options: RunOptions,
        system: str,
        handoff: Handoff | None = None,
        resolve_model: Callable[[str], tuple[Provider, ModelSpec]] | None = None,
    ) -> None:
        self.runner = runner
        #: Resolves the model a plugin switches one call to (``tai_before_model_call``).
        self.resolve_model = resolve_model
        #: The session's kinds, hooks and event sink: the runner's, shared, never copied.
        self.kinds = runner.kinds
        self.hook = runner.hook
        self.emit = runner.emit
        self.context = context
        self.options = options
        self.system = system
        self.handoff = handoff
        self.executor = BlockExecutor(self.kinds, self.hook, self.emit, context, options.session_id)
        self._plan_feeds: dict[str, int] = {}
        #: What the user steers with while the run goes (:mod:`._steer`).
        self.steering = Steering()
        #: The usage rows of the attempts that have ended, the running run's last, for
        #: the report of a run cancelled in between (:meth:`report_so_far`).
        self._rows_so_far: tuple[UsageRow, ...] = ()
        #: The attempt streaming now: its round, number, request, model and start.
        self._in_flight: tuple[int, int, GenerationRequest, ModelSpec, float] | None = None

    @property
    def spec(self) -> ModelSpec:
        """The model the run talks to."""
        return self.runner.spec

    # -- state helpers -----------------------------------------------------------------

    def _write(self, state: RunState, spec: NodeSpec) -> tuple[RunState, str]:
        tree, name = state.tree.add(spec)
        self.emit(TreeChanged(self.options.session_id, tree))
        return attrs.evolve(state, tree=tree), name

    def _event(self, state: RunState, body: str, **fields: str) -> RunState:
        return self._write(state, NodeSpec(NodeKind.EVENT, body=body, attrs=fields))[0]

    @staticmethod
    def start_state(tree: SessionTree | None = None, workspace: Any = None) -> RunState:
        """The state of a session before its first input."""
        return RunState(
            messages=(), tree=tree or SessionTree(), anchor="session", workspace=workspace
        )

    def with_input(self, state: RunState, text: str, node_body: str) -> RunState:
        """``state`` with a user message ``text``, recorded in the tree as ``node_body``."""
        state, name = self._write(state, NodeSpec(NodeKind.USER_INPUT, body=node_body))
        # the model names the input as the parent of a response or a plan, from its first
        # reply on: before the feedback's outline has shown it any name
        text = f"{text.rstrip()}\n\n{notes.input_node_note(name)}"
        return attrs.evolve(state, messages=(*state.messages, Message("user", text)), anchor=name)

    # -- the loop ----------------------------------------------------------------------

    def report_so_far(self) -> str:
        """The usage table as a run's report would give it now — the attempts that ended,
        the running run's last — for a run cancelled before its own report; an attempt
        cut while the model wrote is billed all the same, so it has a row too, estimated
        (outcome ``cancelled``)."""
        rows = self._rows_so_far
        streamed = "".join(self.runner.streamed)
        if self._in_flight is not None and streamed:
            round_no, attempt_no, request, spec, started = self._in_flight
            guess, cost = _billed_guess(request, streamed, spec)
            seconds = time.perf_counter() - started
            rows = (*rows, UsageRow(round_no, attempt_no, guess, cost, seconds, "cancelled",
                                    estimated=True))  # fmt: skip
        return usage_table(rows)

    async def run(self, state: RunState) -> RunResult:
        """Rounds from ``state`` (whose last message is the user's) until the run ends."""
        self._rows_so_far, self._in_flight = state.usage_rows, None
        try:
            while True:
                if self.options.max_rounds and state.round >= self.options.max_rounds:
                    state = self._event(state, f"stopped after {state.round} rounds", event="limit")
                    break
                state, feedback = await self._round(attrs.evolve(state, round=state.round + 1))
                if feedback is None and not self.steering.pending:
                    break
                feedback = feedback or []  # one more round carries what the user steered
                feedback = self._within_window(state, feedback, outline(state.tree))
                body = "\n\n".join([*feedback, outline(state.tree)])
                state, name = self._write(
                    state, NodeSpec(NodeKind.FEEDBACK, body="\n\n".join(feedback))
                )
                state = attrs.evolve(
                    state, messages=(*state.messages, Message("user", body)), anchor=name
                )
        except RunError as error:
            state = error.state or state
            self._event(state, str(error), event="error")
            raise RunFailure(str(error), usage_table(state.usage_rows), final=error.final) from None
        finally:
            self._checkpoint(state.round, "end")
        return RunResult(state, usage_table(state.usage_rows))

    def _within_window(self, state: RunState, feedback: list[str], closing: str) -> list[str]:
        """``feedback`` as it fits the model's window after the conversation so far: block
        results too large are cut, with a note that says how large they were and how to
        ask for less (a run that cannot fit even the note fails when it asks next)."""
        window = window_of(self.spec)
        conversation = GenerationRequest(system=self.system, messages=state.messages)
        used = request_tokens(conversation) + estimate_tokens(closing)
        text = "\n\n".join(feedback)
        size = estimate_tokens(text)
        room = window.request_tokens - used - FEEDBACK_SLACK
        if size <= room or room <= 0:
            return feedback
        note = notes.cut_feedback_note(size, room)
        keep = max(0, room * 4 - len(note) - 2)
        return [f"{text[:keep]}\n\n{note}"]

    def _checkpoint(self, round_no: int, reason: str) -> None:
        """Let the checkpoint plugin record the tree (``tai_checkpoint``) for ``tai undo``."""
        self._observe(
            "tai_checkpoint", root=str(self.context.cwd), session_id=self.options.session_id,
            round_number=round_no, reason=reason, config=self.context.config,
            command_id=self.options.command_id or self.options.session_id,
        )  # fmt: skip

    def _observe(self, hook: str, **kwargs: Any) -> None:
        """Call the observation hook ``hook``: a plugin's failure is a warning naming it,
        and the run goes on (``tai_core.plugins._observe``)."""

        def warn(line: str) -> None:
            self.emit(Notice(self.options.session_id, "warning", line))

        observe(getattr(self.hook, hook), warn, **kwargs)

    async def _round(self, state: RunState) -> tuple[RunState, list[str] | None]:
        """One round with its retries; returns the state after it and the next round's
        feedback (``None`` when nothing triggers another round). Every attempt ends with
        exactly one ``RoundEnded`` (and ``tai_round_end``): ``success`` once the round's
        changes are on disk, ``retry``, or ``error`` when the run cannot go on."""
        snapshot = state
        base = state
        retries = self.options.max_retries
        steered = 0  # steered attempts use none of the retries
        for attempt_no in itertools.count(1):  # the last (retries + 1) returns or raises
            try:
                if self.steering.pending:
                    steering = self.steering.take()
                    base = attrs.evolve(base, messages=with_steering(base.messages, steering))
                    snapshot = attrs.evolve(snapshot, messages=base.messages)
                self.emit(RoundStarted(self.options.session_id, state.round, attempt_no))
                self._observe("tai_round_start", session=self.options, round_number=state.round)
                started = time.perf_counter()
                request, provider, spec = self._request(base)
                self._in_flight = (state.round, attempt_no - steered, request, spec, started)
                attempt = await self.steering.race(
                    self.runner.run(request, state.round, base.workspace, (provider, spec))
                )
                self._in_flight = None
                if attempt is None:
                    snapshot = base = self._steered(base)
                    self._round_end(state.round, "retry")
                    steered += 1
                    continue
                base = self._account(
                    base, attempt, attempt_no - steered, started, spec, request=request
                )
                verdict = self._verdict(attempt)
                if verdict == "success":
                    attempt, verdict = self._finish_workspace(attempt)
                if verdict in SHORT and attempt_no - steered > retries:
                    said = f"{SHORT[verdict][1]}; using it"
                    self.emit(Notice(self.options.session_id, "warning", said))
                    verdict = "success"
                if verdict == "success":
                    flushed = self._flush(attrs.evolve(base, workspace=attempt.workspace))
                elif attempt_no - steered > retries:
                    raise RunError(
                        f"round {state.round} failed after {retries} retries: {attempt.failure}"
                    )
            except RunError as error:  # the failed run's usage and events are its own
                error.state = error.state or base
                self._round_end(state.round, "error")
                raise
            if verdict == "success":
                self._round_end(state.round, "success")
                try:
                    return await self._succeed(flushed, attempt)
                except RunError as error:
                    error.state = error.state or flushed
                    raise
            self._round_end(state.round, "retry")
            base = await self._retry_base(snapshot, base, attempt, attempt_no - steered, verdict)

    def _steered(self, state: RunState) -> RunState:
        """``state`` after its reply was interrupted by the user's steering: the reply as
        far as it streamed and the user's words join the conversation; nothing of the
        attempt is applied."""
        text = self.steering.take()
        self.emit(Notice(self.options.session_id, "info", "steered: the reply was interrupted"))
        state = self._event(state, text, event="steered")
        partial = "".join(self.runner.streamed)
        return attrs.evolve(state, messages=interrupted(state.messages, partial, text))

    def _round_end(self, round_no: int, outcome: str) -> None:
        self.emit(RoundEnded(self.options.session_id, round_no, outcome))
        self._observe("tai_round_end", session=self.options, round_number=round_no, outcome=outcome)

    def _request(self, state: RunState) -> tuple[GenerationRequest, Provider, ModelSpec]:
        """The request of an attempt, with what ``tai_before_model_call`` plugins change,
        and the model it goes to (the session's, unless a plugin switched this call)."""
        try:
            answers = named_answers(
                self.hook.tai_before_model_call, session=self.options, model=self.spec.name,
                messages=[{"role": m.role, "text": m.text} for m in state.messages],
            )  # fmt: skip
        except PluginHookError as error:  # the call it decides is not made
            raise RunError(f"{error}; the model was not called") from error
        changes = call_changes(answers, self.resolve_model)
        provider, spec = changes.model or (self.runner.provider, self.spec)
        request = GenerationRequest(
            system="\n\n".join([self.system, *changes.system_texts]),
            messages=state.messages if changes.messages is None else changes.messages,
            max_output_tokens=spec.max_generate_tokens,
            temperature=spec.temperature,
            reasoning_effort=spec.reasoning_effort,
            headers=changes.headers,
        )
        window = window_of(spec)
        needed = request_tokens(request)
        if needed > window.request_tokens:
            raise RunError(
                f"the next request would hold about {needed} tokens, more than "
                f"{window.describe()}; nothing was sent"
            )
        return request, provider, spec

    def _account(
        self, state: RunState, attempt: Attempt, attempt_no: int, started: float,
        spec: ModelSpec, *, request: GenerationRequest,
    ) -> RunState:  # fmt: skip
        usage = attempt.usage
        outcome = "error" if attempt.failure else (attempt.finish or "stop")
        cost = usage.cost(spec.prices) if usage is not None else None
        if usage is not None:
            self.emit(UsageReported(self.options.session_id, state.round, usage, cost))
        seconds = time.perf_counter() - started
        row = UsageRow(state.round, attempt_no, usage or Usage(), cost, seconds, outcome)
        if usage is None and attempt.produced:  # cut after the model began: billed all the same
            guess, guessed_cost = _billed_guess(request, attempt.text + attempt.thoughts, spec)
            row = attrs.evolve(row, usage=guess, cost=guessed_cost, estimated=True)
        self._observe(
            "tai_after_model_call", session=self.options, model=spec.name,
            finish_reason=outcome, usage=attrs.asdict(usage) if usage else {},
        )  # fmt: skip
        state = attrs.evolve(state, usage_rows=(*state.usage_rows, row))
        self._rows_so_far = state.usage_rows
        for summary in attempt.thought_summaries:
            state = self._event(state, summary, event="thought-summary")
        counts = {name: str(value) for name, value in attrs.asdict(usage).items()} if usage else {}
        return self._event(state, f"finish {outcome}", event="finish", finish=outcome, **counts)

    @staticmethod
    def _finish_workspace(attempt: Attempt) -> tuple[Attempt, str]:
        """Let the workspace finish the round's edits (formatting) before deciding success:
        a failure there fails the attempt like a change that could not be applied."""
        finish = getattr(attempt.workspace, "finished", None)
        if finish is None:
            return attempt, "success"
        try:
            return attrs.evolve(attempt, workspace=finish()), "success"
        except Exception as error:  # noqa: BLE001 - the store's errors name file and cause
            return attrs.evolve(attempt, failure=WorkspaceError(str(error))), "failed"

    def _verdict(self, attempt: Attempt) -> str:
        if isinstance(attempt.failure, RunError):  # a block that retrying cannot cure
            raise attempt.failure
        if attempt.failure is not None:
            failure = attempt.failure
            if not attempt.produced and not isinstance(failure, BlockApplyError | WorkspaceError):
                refused = isinstance(failure, ProviderError) and not failure.retryable
                raise (CallRefused if refused else RunError)(str(failure))
            return "failed"
        if (attempt.finish or "").lower() in LENGTH_FINISHES:
            return "truncated"
        if self.options.require_completion and not self._complete(attempt.blocks):
            return "incomplete"
        return "success"

    def _complete(self, blocks: tuple[Block, ...]) -> bool:
        return any(
            block.kind in (SUMMARY, DONE)
            or (block.kind in self.kinds and self.kinds[block.kind].triggers_round)
            for block in blocks
        )

    async def _retry_base(
        self, snapshot: RunState, base: RunState, attempt: Attempt, attempt_no: int, verdict: str
    ) -> RunState:
        retries = self.options.max_retries
        if verdict == "failed":
            note = notes.error_retry_note(
                str(attempt.failure),
                attempt_no,
                retries,
                isinstance(attempt.failure, BlockApplyError | WorkspaceError),
            )
            self.emit(Notice(self.options.session_id, "warning", f"retrying: {attempt.failure}"))
            base = self._event(base, str(attempt.failure), event="retry")
            # base's workspace is still the snapshot's: only a successful attempt's is kept
            messages = (*base.messages, Message("assistant", attempt.text), Message("user", note))
            return attrs.evolve(base, messages=messages)
        said, _, event = SHORT[verdict]
        # a block of a kind no plugin runs may be what the model meant to go on with
        passed_over = [notes.unknown_kind_note(block, self.kinds)
                       for block in attempt.blocks if block.kind not in self.kinds]  # fmt: skip
        if verdict == "incomplete":  # and so may a block it wrote wrong (a cut one is expected)
            passed_over += [error.message().partition("\n")[0] for error in attempt.errors]
        if passed_over:
            self.emit(Notice(self.options.session_id, "warning", "; ".join(passed_over)))
        self.emit(Notice(self.options.session_id, "warning", f"{said}; retrying"))
        base = self._event(base, event, event="truncation")
        retry = attrs.evolve(snapshot, tree=base.tree, usage_rows=base.usage_rows)
        handoff = await self.handoff(attempt.text + attempt.thoughts) if self.handoff else None
        if handoff:
            retry = self._event(retry, handoff, event="handoff")
        note = notes.truncation_note(attempt_no, retries, handoff or "", verdict == "truncated")
        note = "\n".join([note, *passed_over])
        last = retry.messages[-1]
        return attrs.evolve(
            retry, messages=(*retry.messages[:-1], Message(last.role, f"{last.text}\n\n{note}"))
        )

    # -- after a successful attempt ----------------------------------------------------

    def _flush(self, state: RunState) -> RunState:
        """The successful attempt's changes written to disk (unless the run is dry), after
        a checkpoint of the tree they change."""
        workspace = state.workspace
        if not (self.options.flush and workspace is not None and hasattr(workspace, "flush")):
            return state
        pending = getattr(workspace, "pending", None)  # a workspace may not list
        written = tuple(change.path for change in pending()) if pending else ()
        if pending is None or written:
            self._checkpoint(state.round, "write")
        try:
            state = attrs.evolve(state, workspace=workspace.flush())
        except Exception as error:  # noqa: BLE001 - the store's errors name file and cause
            raise FlushRefused(f"writing the round's changes failed: {error}") from None
        if written:
            self.emit(ChangesWritten(self.options.session_id, state.round, written))
        return state

    async def _succeed(
        self, state: RunState, attempt: Attempt
    ) -> tuple[RunState, list[str] | None]:
        """Record the flushed attempt's reply in the tree and run its blocks."""
        applied = [b for b in attempt.blocks if self._applied(b, state.workspace)]
        dry = [b for b in attempt.blocks if b not in applied and self._streams_here(b)]
        valid, invalid, passed_over = self._validate(
            [b for b in attempt.blocks if b not in applied and b not in dry]
        )
        tree, response, names, rejected = record_reply(
            state.tree, state.anchor, attempt.text, applied, valid
        )
        self.emit(TreeChanged(self.options.session_id, tree))
        summaries = tuple(b.body for b in valid if b.kind == SUMMARY)
        state = attrs.evolve(
            state, tree=tree, anchor=response,
            messages=(*state.messages, Message("assistant", attempt.text)),
            summaries=(*state.summaries, *summaries),
            remaining=(
                *state.remaining,
                *(b for b in attempt.blocks if b.kind not in self.kinds or b in dry),
                *(b for b in valid if not self.kinds[b.kind].runs and b.kind not in RECORDED),
            ),
        )  # fmt: skip
        feedback: list[str] = []
        state = self._parse_feedback(state, attempt, invalid, feedback)
        if rejected:  # the user is told, as the model is
            said = "; ".join(rejected)
            self.emit(
                Notice(self.options.session_id, "warning", f"no block of the reply ran: {said}")
            )
            feedback.extend(notes.rejected_batch_note(reason) for reason in rejected)
        else:
            state, results = await self._execute(state, valid, names)
            feedback.extend(results)
        if not feedback:
            state, plan_note = self._plan_feed(state)
            if plan_note:
                feedback.append(plan_note)
        if passed_over:  # the user is told; the model too when another round comes anyway
            self.emit(Notice(self.options.session_id, "warning", "; ".join(passed_over)))
            feedback += passed_over if feedback else []
        return state, feedback or None

    def _applied(self, block: Block, workspace: Any) -> bool:
        kind = self.kinds.get(block.kind)
        return kind is not None and self.runner.offers(kind) and applies(kind, workspace)

    def _streams_here(self, block: Block) -> bool:
        """A streaming block of an available kind that a run without workspace left
        unapplied."""
        kind = self.kinds.get(block.kind)
        return kind is not None and kind.streams and self.runner.offers(kind)

    def _validate(self, blocks: list[Block]) -> tuple[list[Block], list[str], list[str]]:
        """The valid blocks, what is wrong with the invalid ones, and the blocks passed
        over: of kinds disabled here (as the prompt says, they start no round) or that no
        installed plugin runs (kept for the goal loop's remaining blocks)."""
        valid: list[Block] = []
        invalid: list[str] = []
        passed_over: list[str] = []
        for block in blocks:
            kind = self.kinds.get(block.kind)
            if kind is None:
                passed_over.append(notes.unknown_kind_note(block, self.kinds))
                continue
            if not self.runner.offers(kind):
                passed_over.append(
                    f"{block.kind} block at line {block.line}: {block.kind} blocks are "
                    "disabled in this command; it was discarded"
                )
                continue
            problems = self.runner.problems(block, kind)
            if problems:
                invalid.append(
                    f"{block.kind} block at line {block.line} is invalid: " + "; ".join(problems)
                )
            else:
                valid.append(block)
        return valid, invalid, passed_over

    def _parse_feedback(
        self, state: RunState, attempt: Attempt, invalid: list[str], feedback: list[str]
    ) -> RunState:
        problems = [notes.describe_parse_error(e) for e in attempt.errors] + invalid
        if not problems:
            return attrs.evolve(state, parse_feedback_rounds=0)
        used = state.parse_feedback_rounds + 1
        budget = self.options.parse_error_budget
        # the user is told what was wrong, as the model is (its first line, each)
        said = "; ".join(problem.strip().partition("\n")[0][:200] for problem in problems)
        if used > budget:
            self.emit(
                Notice(
                    self.options.session_id,
                    "warning",
                    f"{len(problems)} block(s) failed and the correction budget is spent: {said}",
                )
            )
            return attrs.evolve(state, parse_errors=(*state.parse_errors, *attempt.errors))
        self.emit(
            Notice(
                self.options.session_id,
                "warning",
                f"{len(problems)} block(s) could not be used, the model is asked again: {said}",
            )
        )
        feedback.append(notes.parse_error_note(problems, used, budget))
        return attrs.evolve(state, parse_feedback_rounds=used)

    async def _execute(
        self, state: RunState, blocks: list[Block], names: dict[int, str]
    ) -> tuple[RunState, list[str]]:
        results: list[str] = []
        counted: set[str] = set()
        checkpointed = False
        for block in self.executor.in_order(blocks):
            kind = self.kinds[block.kind]
            if kind.runs_programs and not checkpointed:
                checkpointed = True
                self._checkpoint(state.round, "run")
            if block.kind not in counted:
                counted.add(block.kind)
                used = state.kind_rounds.get(block.kind, 0) + 1
                if kind.max_rounds and used > kind.max_rounds:
                    raise RunError(f"max {block.kind} rounds ({kind.max_rounds}) exceeded")
                state = attrs.evolve(state, kind_rounds={**state.kind_rounds, block.kind: used})
            result = await self.executor.run(block, kind, state.round)
            node = names.get(block.start)
            if node is not None:
                spec = NodeSpec(
                    NodeKind.BLOCK_RESULT, body=result.text, parent=node,
                    attrs={"status": "ok" if result.ok else "failed"},
                )  # fmt: skip
                state = self._write(state, spec)[0]
            if result.text and (result.triggers_round or kind.triggers_round):
                results.append(result.text)
        return state, results

    def _plan_feed(self, state: RunState) -> tuple[RunState, str | None]:
        entry = next_plan_entry(state.tree)
        if entry is None:
            return state, None
        fed = self._plan_feeds.get(entry.name, 0) + 1
        self._plan_feeds[entry.name] = fed
        if fed > PLAN_FEED_LIMIT:
            self.emit(
                Notice(
                    self.options.session_id,
                    "warning",
                    f"plan entry {entry.name!r} was handed over {PLAN_FEED_LIMIT} times "
                    "without being done; stopping",
                )
            )
            return state, None
        return state, notes.plan_entry_note(entry.name, entry.body)


def _billed_guess(
    request: GenerationRequest, written: str, spec: ModelSpec
) -> tuple[Usage, float | None]:
    """The usage of an attempt cut after the model began to write (billed all the same,
    never reported), estimated from ``request`` and what was ``written``, and its cost."""
    guess = Usage(input=request_tokens(request), output=estimate_tokens(written))
    return guess, guess.cost(spec.prices)


class RunFailure(Exception):
    """The run ended on an error; ``report`` is the usage table so far, ``final`` says
    whether another run would fail the same way (:attr:`RunError.final`)."""

    def __init__(self, message: str, report: str, *, final: bool) -> None:
        super().__init__(message)
        self.report = report
        self.final = final
