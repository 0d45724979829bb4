"""The runtime: commands in, events out, one pipeline task per running session.

Clients (the CLI printer, a TUI, a web page, a recorder) never call the pipeline: they send
commands (:class:`StartSession`, :class:`Submit`, :class:`Cancel`, :class:`CloseSession`)
and render the events the bus delivers. Handling a command never blocks: a submit starts
an asyncio task and returns. A session keeps its state between submits (an interactive
session continues where it stopped); a cancelled or failed run leaves the state as it was
before that submit, since every state is an immutable value and only a finished run
replaces it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from tai_core.blocks import BlockKind
from tai_core.events import (
    Notice,
    RunCancelled,
    RunFailed,
    RunFinished,
    SessionClosed,
    SessionStarted,
)
from tai_core.models import ModelSpec, Provider, RetryPolicy
from tai_core.pipeline import (
    AttemptRunner,
    Pipeline,
    RunFailure,
    RunOptions,
    RunState,
)
from tai_core.pipeline._loop import Handoff
from tai_core.runtime._bus import EventBus


@attrs.frozen
class SessionSetup:
    """Everything a session needs, assembled by the command that starts it."""

    options: RunOptions
    provider: Provider
    spec: ModelSpec
    kinds: Mapping[str, BlockKind]
    system: str
    context: Any
    workspace: Any = None
    handoff: Handoff | None = None
    retry_policy: RetryPolicy | None = None
    #: Renders the run's changes for :class:`RunFinished` (empty when nothing changed).
    describe_changes: Callable[[Any], str] | None = None


@attrs.frozen
class StartSession:
    """Open a session; ``setup.options.session_id`` names it."""

    setup: SessionSetup


@attrs.frozen
class Submit:
    """Send ``text`` to the model as the next user input (``shown`` goes into the tree)."""

    session_id: str
    text: str
    shown: str = ""


@attrs.frozen
class Cancel:
    """Stop the session's running submit; nothing of the interrupted round is applied."""

    session_id: str


@attrs.frozen
class CloseSession:
    """Close the session (refused while it runs)."""

    session_id: str


Command = StartSession | Submit | Cancel | CloseSession


@attrs.define
class _Session:
    setup: SessionSetup
    pipeline: Pipeline
    state: RunState
    task: asyncio.Task[None] | None = None


class Runtime:
    """Runs sessions for any number of clients of one :class:`EventBus`."""

    def __init__(
        self, hook: Any, bus: EventBus | None = None, *, schedule_interval: float = 0.0
    ) -> None:
        self.hook = hook
        self.bus = bus or EventBus()
        #: Seconds between ``tai_schedule_tick`` calls while a run is going (0: none).
        self.schedule_interval = schedule_interval
        self._sessions: dict[str, _Session] = {}

    def handle(self, command: Command) -> None:
        """Act on ``command``; problems become :class:`Notice` events, never exceptions."""
        if isinstance(command, StartSession):
            self._start(command.setup)
            return
        session = self._sessions.get(command.session_id)
        if session is None:
            self._notice(command.session_id, f"no session {command.session_id!r}")
        elif isinstance(command, Submit):
            self._submit(session, command)
        elif isinstance(command, Cancel):
            if session.task is not None and not session.task.done():
                session.task.cancel()
        elif session.task is not None and not session.task.done():
            self._notice(command.session_id, "the session is running; cancel it before closing")
        else:
            del self._sessions[command.session_id]
            self.hook.tai_session_end(session=session.setup.options, error=None)
            self.bus.publish(SessionClosed(command.session_id))

    async def wait(self, session_id: str) -> None:
        """Until the session's running submit (if any) has ended."""
        session = self._sessions.get(session_id)
        if session is not None and session.task is not None:
            await asyncio.gather(session.task, return_exceptions=True)

    def state(self, session_id: str) -> RunState | None:
        """The session's state after its last finished run."""
        session = self._sessions.get(session_id)
        return session.state if session else None

    def _notice(self, session_id: str, message: str) -> None:
        self.bus.publish(Notice(session_id, "error", message))

    def _start(self, setup: SessionSetup) -> None:
        session_id = setup.options.session_id
        if session_id in self._sessions:
            self._notice(session_id, f"a session {session_id!r} already exists")
            return
        runner = AttemptRunner(
            provider=setup.provider, spec=setup.spec, kinds=setup.kinds, hook=self.hook,
            emit=self.bus.publish, session_id=session_id, command=setup.options.command,
            disabled=setup.options.disabled, retry_policy=setup.retry_policy,
        )  # fmt: skip
        pipeline = Pipeline(
            runner=runner,
            context=setup.context,
            options=setup.options,
            system=setup.system,
            handoff=setup.handoff,
        )
        state = pipeline.start_state(workspace=setup.workspace)
        self._sessions[session_id] = _Session(setup, pipeline, state)
        self.hook.tai_session_start(session=setup.options)
        self.bus.publish(SessionStarted(session_id, setup.options.command, setup.spec.name))

    def _submit(self, session: _Session, command: Submit) -> None:
        if session.task is not None and not session.task.done():
            self._notice(command.session_id, "a run is already in progress; input ignored")
            return
        if not command.text.strip():
            self._notice(command.session_id, "empty input ignored")
            return
        session.task = asyncio.get_running_loop().create_task(self._run(session, command))

    async def _run(self, session: _Session, command: Submit) -> None:
        """Run one submit; whatever happens, exactly one terminal event is published."""
        session_id = command.session_id
        ticker = (
            asyncio.get_running_loop().create_task(self._tick(self.schedule_interval))
            if self.schedule_interval > 0
            else None
        )
        try:
            finished = await self._finished_run(session, command)
        except asyncio.CancelledError:
            self.bus.publish(RunCancelled(session_id))
            return
        except RunFailure as failure:
            self.bus.publish(RunFailed(session_id, str(failure), failure.report))
            return
        except Exception as error:  # noqa: BLE001 - a bug must still end the run visibly
            import traceback

            detail = "".join(traceback.format_exception(error)).rstrip()
            self.bus.publish(Notice(session_id, "error", f"internal error:\n{detail}"))
            self.bus.publish(
                RunFailed(session_id, f"internal error: {type(error).__name__}: {error}")
            )
            return
        finally:
            if ticker is not None:
                ticker.cancel()
        self.bus.publish(finished)

    async def _tick(self, interval: float) -> None:
        """Call ``tai_schedule_tick`` every ``interval`` seconds until cancelled."""
        while True:
            await asyncio.sleep(interval)
            try:
                await asyncio.to_thread(self.hook.tai_schedule_tick, now=time.time())
            except Exception as error:  # noqa: BLE001 - a plugin's tick never breaks a run
                self.bus.publish(Notice("", "warning", f"tai_schedule_tick failed: {error}"))

    async def _finished_run(self, session: _Session, command: Submit) -> RunFinished:
        pipeline = session.pipeline
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
