"""The runtime: commands in, events out, one pipeline task per running session.

Clients (the CLI printer, a TUI, a web page, a recorder) never call the pipeline: they send
commands (:mod:`~tai_core.runtime._commands`) and render the events the bus delivers.
Handling a command never blocks: a submit starts an asyncio task and returns, and what
reads or writes the sessions database runs in a worker thread (``_keeper``). A session
keeps its state between submits (an interactive session continues where it stopped); a
cancelled or failed run leaves the state as it was before that submit, since every state
is an immutable value and only a finished run replaces it.

Every change of a session's status is a :class:`SessionStatusChanged` event and, when the
runtime keeps sessions, a save: a session is in the database from the end of its first
turn, ``streaming`` while a later turn runs (so one ended by a crash is recognised), with
each turn's messages and tree once it ends. ``tai_session_end`` is called once for every
session that started, however it ends — closed, deleted, replaced by a load, or left open
when the runtime shuts down — with the error of its last turn.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

import attrs

from tai_core._time import now
from tai_core.events import (
    Event,
    Notice,
    RoundStarted,
    RunCancelled,
    RunFailed,
    RunFinished,
    SessionClosed,
    SessionDeleted,
    SessionExported,
    SessionLoaded,
    SessionReset,
    SessionsListed,
    SessionStarted,
    SessionStatusChanged,
    SessionUpdated,
    TreeChanged,
)
from tai_core.models import window_of
from tai_core.pipeline import AttemptRunner, Pipeline, RunFailure, RunState
from tai_core.plugins._failures import PluginHookError
from tai_core.plugins._observe import observe
from tai_core.runtime._agents import activate, agent_switch, compaction_prompt
from tai_core.runtime._bus import EventBus
from tai_core.runtime._commands import (
    ActivateAgent,
    Cancel,
    Command,
    CompactSession,
    DeleteSession,
    ExportSession,
    ListSessions,
    LoadSession,
    Reloaded,
    ReloadExtensions,
    ResetSession,
    RespondToPrompt,
    RunExtensionCommand,
    SessionSetup,
    StartSession,
    Steer,
    Submit,
    UpdateSession,
)
from tai_core.runtime._compaction import CompactionSettings, compact, due, request_estimate
from tai_core.runtime._extensions import Extensions, reload_extensions
from tai_core.runtime._keeper import (
    SessionKeeper,
    export_to,
    generator_node,
    parameters,
    session_header,
)
from tai_core.runtime._prompts import Prompts


@attrs.define
class _Session:
    setup: SessionSetup
    pipeline: Pipeline
    state: RunState
    task: asyncio.Task[None] | None = None
    status: str = "idle"
    #: What ended the last turn, when it did not finish (for ``tai_session_end``).
    error: BaseException | None = None
    created_at: str = attrs.field(factory=now)
    #: Tokens and cost of the turns before this process loaded the session.
    earlier: tuple[int, int, float | None] = (0, 0, None)
    #: Whether it is in the database yet (see :meth:`Runtime._save`).
    written: bool = False
    #: What it was set up with, once it switched to an agent command (``_agents.Own``).
    own: Any = None
    #: The agent command in force (``""``: none).
    agent: str = ""
    #: The last round its turns started, finished or not: a cancelled or failed turn's
    #: rounds keep their numbers (events, checkpoints), the next turn goes on after them.
    started: int = 0


class Runtime:
    """Runs sessions for any number of clients of one :class:`EventBus`; keeps them in
    ``store`` (a :class:`~tai_core.sessions.SessionStore`, or a function that opens one
    when it is first needed) when one is given."""

    def __init__(
        self,
        hook: Any,
        bus: EventBus | None = None,
        *,
        schedule_interval: float = 0.0,
        compaction: CompactionSettings | None = None,
        store: Any = None,
        extensions: Mapping[str, tuple[str, Any]] | None = None,
        agents: Callable[[], Mapping[str, Any]] | None = None,
        reload: Callable[[], Reloaded] | None = None,
        app: Any = None,
        answers_prompts: bool = False,
        prompt_timeout: float = 600.0,
    ) -> None:
        self.hook = hook
        self.bus = bus or EventBus()
        #: The plugins' session commands (``/NAME``): name -> (plugin, command).
        self.extensions = Extensions(extensions or {}, self.bus, agents)
        #: What the front-end builds new sessions from (replaced by a reload).
        self.app = app
        self._reload = reload
        #: The open questions of running blocks (answered when the front-end can).
        self.prompts = Prompts(self.bus, answered=answers_prompts, timeout=prompt_timeout)
        #: Seconds between ``tai_schedule_tick`` calls while a run is going (0: none).
        self.schedule_interval = schedule_interval
        #: When a turn compacts the conversation first (``[auto_compact]``).
        self.compaction = compaction or CompactionSettings()
        self.keeper = SessionKeeper(store, self._warn)
        self._sessions: dict[str, _Session] = {}
        self._errands: set[asyncio.Task[None]] = set()
        self._ticker: asyncio.Task[None] | None = None

    def handle(self, command: Command) -> None:
        """Act on ``command``; problems become :class:`Notice` events, never exceptions."""
        self._start_ticking()
        self.prompts.loop = asyncio.get_running_loop()
        if isinstance(command, StartSession):
            self._open(command.setup)
        elif isinstance(command, ReloadExtensions):
            reload_extensions(self, self._reload)
        elif isinstance(command, ListSessions | LoadSession | DeleteSession | ExportSession):
            self._errand(command)
        else:
            session = self._sessions.get(command.session_id)
            if session is None:
                self._notice(command.session_id, f"no session {command.session_id!r}")
            elif isinstance(command, Submit):
                self.prompts.reopen(command.session_id)
                self._submit(session, command)
            elif isinstance(command, Cancel):
                asked = self.prompts.cancel(command.session_id)
                if session.task is not None and not session.task.done():
                    session.task.cancel()
                elif not asked:  # answered, so that a client knows it was not lost
                    self._warn(command.session_id, "nothing runs to cancel")
            elif isinstance(command, RespondToPrompt):
                self.prompts.respond(command)
            elif isinstance(command, RunExtensionCommand) and (
                switch := agent_switch(self.extensions.agents, command)
            ):
                self.handle(switch)
            elif isinstance(command, RunExtensionCommand):  # also while a turn runs
                self._start_errand(self.extensions.run(session.setup.options, command)())
            elif isinstance(command, Steer):
                if session.task is None or session.task.done():
                    self._notice(command.session_id, "nothing runs to steer; submit it instead")
                elif command.text.strip():
                    session.pipeline.steering.add(command.text)
            elif session.task is not None and not session.task.done():
                self._notice(command.session_id, "the session is running; cancel it first")
            elif isinstance(command, ResetSession):
                session.state = session.pipeline.start_state(workspace=session.state.workspace)
                session.error, session.started = None, 0
                self.bus.publish(SessionReset(command.session_id))
                self._set_status(session, "idle")
            elif isinstance(command, UpdateSession):
                self._update(session, command)
            elif isinstance(command, ActivateAgent):
                activate(self, session, command)
            elif isinstance(command, CompactSession):
                self._set_status(session, "streaming")
                session.task = asyncio.get_running_loop().create_task(
                    self._compact_now(session, command.instructions)
                )
            else:
                self._close(session)

    async def wait(self, session_id: str) -> None:
        """Until the session's running submit (if any) has ended."""
        session = self._sessions.get(session_id)
        if session is not None and session.task is not None:
            await asyncio.gather(session.task, return_exceptions=True)

    async def errands_done(self) -> None:
        """Until the list, load, delete and export commands handled so far are done."""
        while self._errands:
            await asyncio.gather(*self._errands, return_exceptions=True)

    async def settle(self) -> None:
        """Until every command handled so far has done its work: runs, saves, errands."""
        while True:
            busy = [s.task for s in self._sessions.values() if s.task and not s.task.done()]
            busy += list(self._errands)
            if not busy:
                break
            await asyncio.gather(*busy, return_exceptions=True)
        await self.keeper.drain()

    async def shutdown(self) -> None:
        """Cancel what runs, close every open session (saved, ``tai_session_end`` called)
        and wait for the last saves."""
        for session in list(self._sessions.values()):
            if session.task is not None and not session.task.done():
                session.task.cancel()
        await self.settle()
        for session in list(self._sessions.values()):
            self._close(session)
        if self._ticker is not None:
            self._ticker.cancel()
            await asyncio.gather(self._ticker, return_exceptions=True)
            self._ticker = None
        await self.keeper.drain()

    def agent(self, session_id: str) -> str:
        """The agent command session ``session_id`` is switched to (``""``: none)."""
        session = self._sessions.get(session_id)
        return session.agent if session is not None else ""

    def state(self, session_id: str) -> RunState | None:
        """The session's state after its last finished run."""
        session = self._sessions.get(session_id)
        return session.state if session else None

    # -- sessions ------------------------------------------------------------------------

    def _observe(self, hook: str, session_id: str = "", **kwargs: Any) -> None:
        """Tell the plugins of ``hook``; a plugin's failure is one warning naming it."""
        observe(getattr(self.hook, hook), lambda line: self._warn(session_id, line), **kwargs)

    def _notice(self, session_id: str, message: str) -> None:
        self.bus.publish(Notice(session_id, "error", message))

    def _warn(self, session_id: str, message: str) -> None:
        self.bus.publish(Notice(session_id, "warning", message))

    def _open(self, setup: SessionSetup, state: RunState | None = None) -> _Session | None:
        """A live session run by ``setup`` (from ``state``, else empty), or ``None`` when
        its id is taken."""
        session_id = setup.options.session_id
        if session_id in self._sessions:
            self._notice(session_id, f"a session {session_id!r} already exists")
            return None
        pipeline = self._pipeline(setup)
        if state is None:
            state = pipeline.start_state(workspace=setup.workspace)
            tree, _ = state.tree.add_batch([generator_node(setup.spec), *setup.opening])
            state = attrs.evolve(state, tree=tree)
        session = self._sessions[session_id] = _Session(setup, pipeline, state)
        self._observe("tai_session_start", session_id, session=setup.options)
        self.bus.publish(SessionStarted(session_id, setup.options.command, setup.spec.name))
        return session

    def _pipeline(self, setup: SessionSetup) -> Pipeline:
        """The pipeline that runs the turns of the session ``setup`` sets up."""
        runner = AttemptRunner(
            provider=setup.provider, spec=setup.spec, kinds=setup.kinds, hook=self.hook,
            emit=self._emitter(setup.options.session_id), session_id=setup.options.session_id,
            command=setup.options.command, disabled=setup.options.disabled,
            retry_policy=setup.retry_policy, summarize=setup.summarize_thoughts,
        )  # fmt: skip
        context = setup.context  # its blocks ask through this runtime's clients, if any
        asks = self.prompts.answered
        if asks and attrs.has(type(context)) and "ask" in attrs.fields_dict(type(context)):
            context = attrs.evolve(context, ask=self.prompts.asker(setup.options.session_id))
        return Pipeline(
            runner=runner,
            context=context,
            options=setup.options,
            system=setup.system,
            handoff=setup.handoff,
            resolve_model=setup.resolve_model,
        )

    def _emitter(self, session_id: str) -> Callable[[Event], None]:
        """How a session's pipeline publishes: on the bus, noting each round started."""

        def emit(event: Event) -> None:
            session = self._sessions.get(session_id)
            if isinstance(event, RoundStarted) and session is not None:
                session.started = max(session.started, event.round)
            self.bus.publish(event)

        return emit

    def _close(self, session: _Session) -> None:
        session_id = session.setup.options.session_id
        del self._sessions[session_id]
        self._set_status(session, "closed")
        self._observe(
            "tai_session_end", session_id, session=session.setup.options, error=session.error
        )
        self.bus.publish(SessionClosed(session_id))

    def _set_status(self, session: _Session, status: str) -> None:
        session.status = status
        error = str(session.error) if status == "error" and session.error else None
        self.bus.publish(SessionStatusChanged(session.setup.options.session_id, status, error))
        self._save(session)

    def _save(self, session: _Session) -> None:
        """Save the session as it is now. A session is first written when its first turn
        ends (or it is closed, reset or updated before): until then a crash loses nothing
        but that turn, and a one-shot command's request never waits for the database
        to open."""
        unwritten = not session.written
        if not self.keeper.keeps or (unwritten and not session.state.messages):
            return  # nothing to continue yet (a turn in flight is saved when it ends)
        session.written = True
        header = session_header(
            session.setup, session.pipeline.runner.spec, session.state,
            status=session.status, error=session.error, created_at=session.created_at,
            earlier=session.earlier, agent=session.agent,
        )  # fmt: skip
        self.keeper.save(header, session.state.messages, session.state.tree, new=unwritten)

    def _update(self, session: _Session, command: UpdateSession) -> None:
        problem = command.problem()
        if problem:
            self._notice(command.session_id, f"update refused: {problem}")
            return
        runner = session.pipeline.runner
        provider, spec = command.model or (runner.provider, runner.spec)
        spec = command.applied_to(spec)
        runner.provider, runner.spec = provider, spec
        session.setup = attrs.evolve(session.setup, provider=provider, spec=spec)
        self.bus.publish(SessionUpdated(command.session_id, spec.name, parameters(spec)))
        self._save(session)

    # -- errands: the saved sessions ----------------------------------------------------

    def _errand(self, command: ListSessions | LoadSession | DeleteSession | ExportSession) -> None:
        self._start_errand(self._run_errand(command))

    def _start_errand(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as an errand: ``settle`` and ``shutdown`` wait for it."""
        task = asyncio.get_running_loop().create_task(work)
        self._errands.add(task)
        task.add_done_callback(self._errands.discard)

    async def _run_errand(
        self, command: ListSessions | LoadSession | DeleteSession | ExportSession
    ) -> None:
        session_id = getattr(command, "session_id", "")
        try:
            if isinstance(command, ListSessions):
                found = await self.keeper.call(lambda s: s.list(command.limit, command.cwd))
                self.bus.publish(SessionsListed(tuple(found)))
            elif isinstance(command, LoadSession):
                await self._load(command)
            elif isinstance(command, DeleteSession):
                await self._delete(command.session_id)
            else:
                await self.keeper.call(lambda s: export_to(s, command.session_id, command.path))
                self.bus.publish(SessionExported(command.session_id, command.path))
        except (LookupError, ValueError, OSError, RuntimeError) as error:
            self._notice(session_id, str(error))
        except Exception as error:  # noqa: BLE001 - a damaged database is answered, too
            if type(error).__module__ == "sqlite3":  # not imported here: it may never be
                self._notice(session_id, f"the sessions database cannot be read: {error}")
            else:
                self._notice(session_id, f"internal error: {type(error).__name__}: {error}")

    async def _load(self, command: LoadSession) -> None:
        live = self._sessions.get(command.session_id)
        if live is not None and live.task is not None and not live.task.done():
            self._notice(command.session_id, "the session is running; cancel it first")
            return
        stored = await self.keeper.call(lambda s: s.load(command.session_id))
        if live is not None:
            self._close(live)
        options = attrs.evolve(command.setup.options, session_id=command.session_id)
        setup = attrs.evolve(command.setup, options=options)
        header = stored.header
        state = RunState(
            messages=stored.messages, tree=stored.tree, anchor="session",
            workspace=setup.workspace, round=header.rounds,
        )  # fmt: skip
        session = self._open(setup, state)
        if session is None:
            return
        session.created_at = header.created_at
        session.earlier = (header.input_tokens, header.output_tokens, header.cost)
        session.written = True
        self.bus.publish(SessionLoaded(command.session_id, len(stored.messages), *session.earlier))
        self.bus.publish(TreeChanged(command.session_id, state.tree))  # for its clients' views
        if (agent := header.parameters.get("agent")) and isinstance(agent, str):
            self._warn(command.session_id, f"the session ran under /{agent}; it is taken up "
                       f"with its own prompt (/{agent} switches to it again)")  # fmt: skip
        self._save(session)

    async def _delete(self, session_id: str) -> None:
        live = self._sessions.get(session_id)
        if live is not None:
            if live.task is not None and not live.task.done():
                self._notice(session_id, "the session is running; cancel it first")
                return
            self._close(live)
        await self.keeper.call(lambda s: s.delete(session_id))
        self.bus.publish(SessionDeleted(session_id))

    # -- runs ---------------------------------------------------------------------------

    def _submit(self, session: _Session, command: Submit) -> None:
        if session.task is not None and not session.task.done():
            self._notice(command.session_id, "a run is already in progress; input ignored")
            return
        if not command.text.strip():
            self._notice(command.session_id, "empty input ignored")
            return
        self._set_status(session, "streaming")
        session.task = asyncio.get_running_loop().create_task(self._run(session, command))

    async def _run(self, session: _Session, command: Submit) -> None:
        """Run one submit; whatever happens, exactly one terminal event is published."""
        session_id = command.session_id
        options = session.setup.options
        self._observe("tai_turn_start", session_id, session=options, text=command.text)
        try:
            finished = await self._finished_run(session, command)
        except asyncio.CancelledError as cancelled:
            self._ended(session, "idle", cancelled, "cancelled")
            self.bus.publish(RunCancelled(session_id, session.pipeline.report_so_far()))
            return
        except RunFailure as failure:
            self._ended(session, "error", failure, "failed")
            self.bus.publish(RunFailed(session_id, str(failure), failure.report, failure.final))
            return
        except PluginHookError as error:  # a plugin's failure names itself: one line
            self._ended(session, "error", error, "failed")
            self.bus.publish(RunFailed(session_id, str(error)))
            return
        except Exception as error:  # noqa: BLE001 - a bug must still end the run visibly
            import traceback

            detail = "".join(traceback.format_exception(error)).rstrip()
            self._ended(session, "error", error, "failed")
            self.bus.publish(Notice(session_id, "error", f"internal error:\n{detail}"))
            self.bus.publish(
                RunFailed(session_id, f"internal error: {type(error).__name__}: {error}")
            )
            return
        self._ended(session, "idle", None, "finished")
        self.bus.publish(finished)

    def _ended(
        self, session: _Session, status: str, error: BaseException | None, outcome: str
    ) -> None:
        session.error = error
        if session.started > session.state.round:  # a turn that kept nothing of its rounds
            session.state = attrs.evolve(session.state, round=session.started)
        self._set_status(session, status)
        options = session.setup.options
        self._observe(
            "tai_turn_end", options.session_id, session=options, outcome=outcome, error=error
        )

    def _start_ticking(self) -> None:
        """Tick for the runtime's life (from its first command) when an interval is set."""
        if self._ticker is None and self.schedule_interval > 0:
            loop = asyncio.get_running_loop()
            self._ticker = loop.create_task(self._tick(self.schedule_interval))

    async def _tick(self, interval: float) -> None:
        """Call ``tai_schedule_tick`` every ``interval`` seconds until cancelled."""
        while True:
            await asyncio.sleep(interval)
            failures: list[str] = []  # published here: the bus belongs to the loop's thread
            await asyncio.to_thread(
                observe, self.hook.tai_schedule_tick, failures.append, now=time.time()
            )
            for line in failures:
                self._warn("", line)

    async def _compact(self, session: _Session, reason: str, instructions: str = "") -> None:
        """Compact the session's conversation (:mod:`._compaction`) and save it."""
        runner = session.pipeline.runner
        options = session.setup.options
        system = compaction_prompt(
            self.extensions.agents, session.setup, lambda line: self._warn(options.session_id, line)
        )
        state = await compact(
            options=options, state=session.state, provider=runner.provider, spec=runner.spec,
            settings=self.compaction, hook=self.hook, publish=self.bus.publish,
            observe=lambda hook, **kw: self._observe(hook, options.session_id, **kw),
            reason=reason, instructions=instructions, system=system,
        )  # fmt: skip
        if state is not None:
            session.state = state
            self._save(session)

    async def _compact_now(self, session: _Session, instructions: str) -> None:
        """The compact command's task: the session is idle again when it has ended."""
        try:
            await self._compact(session, "requested", instructions)
        finally:
            self._set_status(session, "idle")

    async def _finished_run(self, session: _Session, command: Submit) -> RunFinished:
        pipeline = session.pipeline
        runner = pipeline.runner
        estimate = request_estimate(pipeline.system, session.state.messages, command.text)
        window = window_of(runner.spec).request_tokens
        if due(self.compaction, window, estimate, session.state.messages):
            await self._compact(session, "auto")
        start = pipeline.with_input(session.state, command.text, command.shown or command.text)
        result = await pipeline.run(start)
        describe = session.setup.describe_changes
        finished = RunFinished(
            command.session_id,
            summary="\n".join(result.state.summaries),
            report=result.report,
            diff=describe(result.state.workspace) if describe else "",
            remaining=result.state.remaining,
        )
        session.state = result.state
        return finished
