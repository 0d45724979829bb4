"""The default command's run: the right context provider, then goal loops or one session.

Inside a Go module or a Python project (the ``go`` or ``py`` context provider builds the
context) the task runs as goal loops, each with context collected afresh, under a command of
the provider's name (so the kinds of that language are offered); elsewhere the ``any``
provider's files give the context of one session of any-text generation. Either way the
prompt comes from the same builder, the changes go to a file store flushed per successful
round, and ``-review`` ends the run with a review session over everything it changed.

A dry run (``-no-apply``) must not lie to the model: a test that passes against the
unchanged tree says nothing about the change. So inside the sandbox a dry run is a real run
in a throwaway overlay of the working directory (the sandbox mounts it and says so in
``TAI_DRY_RUN_OVERLAY``): rounds flush, tests and commands see the changes, later loops see
earlier loops' work, and the sandbox prints the diff of the whole overlay when the run has
ended (change blocks, commands and builds alike) — and nothing reaches the user's tree.
Without that overlay (``-no-sandbox``) the changes stay in memory and the kinds that run
programs are switched off, so the model is told it cannot test instead of being told a
stale tree passed.
"""

from __future__ import annotations

import asyncio
import datetime
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import click

from tai_core.app import AppContext
from tai_core.commands._assemble import (
    NO_PROVIDER,
    Selection,
    TaskAlone,
    assembled,
    context_request,
    provider_for,
    standing_texts,
    within_window,
    writable,
)
from tai_core.commands._files import file_parts
from tai_core.commands._goal import (
    EXIT_STATUSES,
    LoopResult,
    goal_node,
    loop_result,
    run_goal,
)
from tai_core.commands._options import GenerationFlags, flag_settings, task_of
from tai_core.commands._printer import Printer
from tai_core.commands._progress import changed, fingerprint
from tai_core.commands._session import (
    INVOCATION,
    describe_changes,
    follow,
    handoff_writer,
    make_recorder,
    make_runtime,
    make_setup,
    open_workspace,
    resolve,
    thought_summarizer,
)
from tai_core.commands._terminal import answers_questions
from tai_core.context import ContextError, ContextProvider, SelectionError, hook_check
from tai_core.context._compose import primary_name
from tai_core.context._prompt import CLOCK_PREFIX, build_prompt
from tai_core.models import estimate_tokens, window_of
from tai_core.store import render_diff
from tai_core.tui import front_end

#: Tokens kept in the first request for the loop feedback (longer feedback is cut) and the
#: clock line, so that the context's limit does not move from loop to loop.
FEEDBACK_TOKENS = 2048
CLOCK_TOKENS = 32
#: One part in this many of the request's room is kept free for the rounds after the
#: first (the model's fetches and their answers), so a full context leaves it room to work.
CONVERSATION_SHARE = 4
#: The primary context providers whose projects run as goal loops, each under the command
#: of its name: their tests verify the work (``go-test``, ``pytest``).
GOAL_COMMANDS = frozenset({"go", "py"})
#: The line of the first request that changes with the clock alone.
CLOCK_LINE = re.compile(rf"^{re.escape(CLOCK_PREFIX)}.*$", re.MULTILINE)
#: Variable the sandbox sets to the working directory it overlays for a dry run.
DRY_RUN_VARIABLE = "TAI_DRY_RUN_OVERLAY"

THEORY_OF_CODING = """\
You are changing a software project to accomplish the task at the end of this request. The \
context is staged: you see an outline — the API surfaces and documentation of the focus \
code, the design intent it states, the files that exist — not every line. Fetch the detail \
you need with the fetch blocks before you reason about code or change it, then make precise \
changes, check them with the tests, and say what you did. Do not guess at code you have not \
seen. A simple task: do it. A larger one: plan it first."""

THEORY_OF_FILES = """\
You are changing the files of a directory to accomplish the task at the end of this \
request. The context shows its files whole, as far as they fit, and lists the others: read \
what you need of those before you change them, then make precise changes and say what you \
did. Do not guess at content you have not seen. A simple task: do it. A larger one: plan it \
first."""

THEORY_OF_GOALS = """\
# Goal loops

The task runs in loops; each loop starts afresh from the files as they are. When the whole \
task is done and verified (the tests pass), write a done block with a summary; the next \
loop will re-read the files to confirm. Write done only when it is really done."""

#: The kinds whose block completes a reply.
COMPLETING = frozenset({"summary", "done"})

REVIEW_TASK = (
    "Review the following changes made for the task below. Fix every bug, omission or "
    "inconsistency you find, with change blocks; if everything is right, say so and change "
    "nothing.\n\nTask:\n{task}\n\nChanges:\n{diff}"
)


@attrs.frozen
class CodeOptions:
    """The default command's own flags: what they select of the context, and the rest."""

    selection: Selection
    shell: bool
    apply: bool
    review: bool
    review_model: str | None
    max_loops: int


class CodeRun:
    """One invocation of the default command."""

    def __init__(self, app: AppContext, flags: GenerationFlags, options: CodeOptions) -> None:
        self.app = app
        self.flags = flags
        self.options = options
        self.cwd = Path.cwd()
        try:
            provider = provider_for(app, self.cwd, options.selection.provider)
        except ContextError as error:
            raise click.UsageError(str(error)) from None
        if provider is None:
            click.echo(f"tai: note: {NO_PROVIDER}", err=True)
            provider = TaskAlone()
        self.provider: ContextProvider = provider
        primary = primary_name(provider)
        self.command = primary if primary in GOAL_COMMANDS else "any"
        overrides = {"shell": True} if options.shell else {}
        self.config: Mapping[str, Any] = {**app.config.values, **flag_settings(flags), **overrides}
        #: A dry run inside the sandbox's overlay: rounds flush, into the overlay.
        self.overlaid = not options.apply and os.environ.get(DRY_RUN_VARIABLE) == str(
            self.cwd.resolve()
        )
        self.flushes = options.apply or self.overlaid
        kinds = app.host.registry.block_kinds
        self.disabled = frozenset(
            n for n, k in kinds.items()
            if not k.available(self.config) or (not self.flushes and k.runs_programs)
        )  # fmt: skip
        #: Whether a reply must complete (a summary or done block): only when a kind that
        #: completes one is there to be written; without one, a reply of text ends the run.
        self.completes = bool(COMPLETING & (kinds.keys() - self.disabled))
        self.standing = standing_texts(app, self.command, self.cwd, self.config)
        self.model = resolve(app, flags.model, confidential=flags.confidential)
        self.handoff = handoff_writer(app, flags, self.model)
        is_writable = writable(app)
        secret = hook_check(app.host.pm.hook, self.config)
        self.request = context_request(
            self.cwd, self.command, self.config, options.selection, is_writable=is_writable,
            secret=secret,
        )  # fmt: skip
        self.files = file_parts(flags.files, self.cwd, is_writable, secret)
        self.runtime = make_runtime(
            app, answers_prompts=answers_questions(tui=flags.tui, cli=flags.cli)
        )
        self.stores: list[Any] = []
        #: The context's notices as last printed.
        self.notices: list[str] = []
        #: The last session's first request, its clock line left out.
        self.last_request: tuple[str, str] | None = None
        #: The files the goal loops that ended changed, in order: named when a later loop
        #: is cancelled, whose own last line speaks only of its rounds.
        self.written: dict[str, None] = {}

    def _base(self) -> str:
        """The opening of the system prompt: a project's goal loops (outlines, fetches,
        tests), or the files of a directory that is no project (shown whole)."""
        if self.command in GOAL_COMMANDS:
            return f"{THEORY_OF_CODING}\n\n{THEORY_OF_GOALS}"
        return THEORY_OF_FILES

    async def session(
        self, task: str, feedback: str, model: Any = None, loop: int = 0
    ) -> LoopResult:
        """One session of the task with fresh context (goal loop ``loop``, when one);
        how it ended, with the files it changed (on disk, or pending in a dry run's
        store)."""
        before = await asyncio.to_thread(fingerprint, self.cwd)
        spec = (model or self.model)[1]
        feedback = _bounded(feedback)
        try:
            prompt = await asyncio.to_thread(self._first_request, task, feedback, spec)
        except ContextError as error:
            # no session started, so no printer: say it here; retrying cannot help
            message = f"context: {error}"
            click.echo(f"tai: error: {message}", err=True)
            recorder = make_recorder(self.app, self.flags, system="", user=task)
            if recorder is not None:
                recorder.context_failed(self.command, spec.name, message)
            return LoopResult(
                "unusable" if isinstance(error, SelectionError) else "stopped", message
            )
        request = (prompt.system, CLOCK_LINE.sub("", prompt.user))
        if request == self.last_request:
            message = "the next loop would send the previous loop's request again; stopping"
            click.echo(f"tai: error: {message}", err=True)
            return LoopResult("stopped", message)
        self.last_request = request
        workspace = open_workspace(self.app.host, self.config, self.cwd)
        setup = make_setup(
            self.app.host, self.config, model or self.model, command=self.command,
            system=prompt.system, require_completion=self.completes, cwd=self.cwd,
            workspace=workspace,
            handoff=self.handoff,
            summarize=thought_summarizer(self.app, self.config, self.flags.fast_model, self.model),
            describe=(
                None if self.overlaid  # the sandbox shows the whole layer's diff at the end
                else describe_changes if self.options.apply else _pending_diff
            ),
        )  # fmt: skip
        setup = attrs.evolve(
            setup,
            options=attrs.evolve(
                setup.options, disabled=self.disabled, flush=self.flushes, command_id=INVOCATION
            ),
            opening=(goal_node(loop, self.options.max_loops, feedback),) if loop else (),
        )
        recorder = make_recorder(self.app, self.flags, system=prompt.system, user=prompt.user)
        flags = self.flags
        printer = front_end(self.runtime, Printer(thoughts=flags.thoughts), tui=flags.tui,
                            cli=flags.cli, thoughts=flags.thoughts,
                            linger=self.command not in GOAL_COMMANDS)  # fmt: skip
        event, state = await follow(
            self.runtime, setup, prompt.user, task, printer, recorder=recorder
        )
        names = set(changed(before, await asyncio.to_thread(fingerprint, self.cwd)))
        diff = ""
        if state is not None:
            self.stores.append(state.workspace)
            edits = _store_changes(state.workspace)
            names |= {self._relative(c.path) for c in edits}
            diff = render_diff(edits, color=False)
        result = loop_result(event, state, tuple(sorted(names)), diff)
        if result.outcome == "cancelled":
            self.say_written()
        else:
            self.written.update(dict.fromkeys(result.changed))
        return result

    def say_written(self) -> None:
        """After a cancel, the line naming what the earlier goal loops wrote (if any)."""
        if self.written:
            click.echo(f"tai: the earlier loops wrote: {', '.join(self.written)}", err=True)

    def _relative(self, path: str) -> str:
        return os.path.relpath(Path(self.cwd, path), self.cwd)

    def _prompt(self, parts: Any, task: str, feedback: str, now: str) -> Any:
        return build_prompt(
            base=self._base(), kinds=self.app.host.registry.block_kinds.values(),
            command=self.command, parts=assembled(self.cwd, parts, self.files), task=task,
            config=self.config, disabled=self.disabled, feedback=feedback, now=now,
            standing=self.standing,
        )  # fmt: skip

    def _first_request(self, task: str, feedback: str, spec: Any) -> Any:
        """The prompt of a session's first request, within the model's window
        (:func:`~tai_core.commands._assemble.within_window`); the limit of the context
        leaves a fixed allowance for the loop feedback and the clock, so that every loop
        of a run gets the same limit (and so the same reductions), and a quarter of the
        window for the conversation that follows."""
        bare = self._prompt((), task, "", "")
        bare_tokens = estimate_tokens(bare.system) + estimate_tokens(bare.user)
        now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
        window = window_of(spec)
        parts, prompt = within_window(
            self.provider, self.request, lambda parts: self._prompt(parts, task, feedback, now),
            window, bare_tokens + FEEDBACK_TOKENS + CLOCK_TOKENS,
            conversation=window.request_tokens // CONVERSATION_SHARE,
        )  # fmt: skip
        notices = [part.notice for part in parts if part.notice]
        if notices != self.notices:  # said once, and again when it changes
            for notice in notices:
                click.echo(f"tai: note: {notice}", err=True)
            self.notices = notices
        return prompt

    async def run(self) -> int:
        """The whole command; its exit status."""
        task = self.flags.chat
        if self.command in GOAL_COMMANDS:
            goal = await run_goal(
                lambda loop, feedback: self.session(task, feedback, loop=loop),
                max_loops=self.options.max_loops,
            )
            status = goal.exit_code
        else:
            status = reported_exit_status(await self.session(task, ""))
        if status == 0 and self.options.review:
            status = await self._review(task)
        return status

    async def _review(self, task: str) -> int:
        diff = self.diff(color=False)
        if not diff:
            return 0
        model = self.model
        if self.options.review_model:
            model = resolve(self.app, self.options.review_model, confidential=False)
        result = await self.session(REVIEW_TASK.format(task=task, diff=diff), "", model)
        return reported_exit_status(result)

    def diff(self, color: bool) -> str:
        """The unified diff of everything this command changed, over all its sessions."""
        from tai_core.store import Change

        merged: dict[str, Change] = {}
        for store in self.stores:
            changes = store.changes() if self.flushes else store.pending()
            for change in changes:
                first = merged.get(change.path)
                merged[change.path] = Change(change.path, first.old if first else change.old,
                                             change.new)  # fmt: skip
        return render_diff([c for c in merged.values() if c.old != c.new], color)


def _bounded(feedback: str) -> str:
    """``feedback`` within :data:`FEEDBACK_TOKENS` (the rest cut, with a note)."""
    room = FEEDBACK_TOKENS * 4 - 200
    if len(feedback) <= room:
        return feedback
    return f"{feedback[:room]}\n[cut: {len(feedback) - room} more characters of feedback]"


def _store_changes(workspace: Any) -> list[Any]:
    """The changes a session's store holds (flushed or pending), none without a store."""
    return list(workspace.changes()) if workspace is not None else []


def _pending_diff(workspace: Any) -> str:
    import sys

    from tai_core.store import pending_diff

    return pending_diff(workspace, sys.stderr.isatty())


def reported_exit_status(result: LoopResult) -> int:
    """The exit status of a single session's :class:`LoopResult`, once its failure is
    said on standard error: a session that finished with blocks still malformed when the
    corrections ran out failed (what they asked for was not done)."""
    if result.outcome == "finished" and result.parse_errors:
        count = len(result.parse_errors)
        click.echo(
            f"tai: error: {count} block(s) of the reply were still malformed when the "
            "corrections ran out: they were not applied (what the others did stays)",
            err=True,
        )
        return 1
    return EXIT_STATUSES[result.outcome]


def run_code(app: AppContext, flags: GenerationFlags, options: CodeOptions) -> int:
    """Run the default command; its exit status."""
    flags = attrs.evolve(flags, chat=task_of(flags))  # -stdin's text joins the task
    if not flags.chat.strip():
        raise click.UsageError('give the task as chat "…" (or -stdin)')
    run = CodeRun(app, flags, options)
    try:
        return asyncio.run(run.run())
    except KeyboardInterrupt:  # between two loops' runs: ends as the console script says
        run.say_written()
        raise
