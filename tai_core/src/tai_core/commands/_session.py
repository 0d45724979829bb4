"""Running one session of a generating command: resolve, start, submit, print, exit.

The command-line side of the runtime for single-shot commands (``next``, the goal loops):
it resolves the model from flags and configuration, starts a session, submits the task,
lets the :class:`~tai_core.commands._printer.Printer` render the events, and turns the run's
ending into an exit status (0 done, 1 failed, 130 cancelled). Ctrl-C sends a ``Cancel``
command: the stream stops at once, running blocks are killed, and the last line says
exactly which rounds' changes reached the disk.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import click

from tai_core.app import AppContext
from tai_core.commands._options import GenerationFlags, SetupError, flag_settings
from tai_core.commands._printer import Printer
from tai_core.models import ModelConfigError, ModelSpec, Provider, resolve_model
from tai_core.pipeline import RunOptions, RunState
from tai_core.pipeline._handoff import HandoffWriter
from tai_core.plugins import PluginHost
from tai_core.runtime import (
    Cancel,
    CloseSession,
    CompactionSettings,
    EventBus,
    RunCancelled,
    RunFailed,
    Runtime,
    SessionSetup,
    StartSession,
    Submit,
)

if TYPE_CHECKING:
    from tai_core.config import Config
    from tai_core.records import Recorder

#: Exit status of a cancelled run (as a shell reports SIGINT).
CANCELLED = 130

#: This tai command, as its recorded runs name it: its goal loops, or its chat's turns,
#: are runs of their own, replayed together (``tai record -replay``).
INVOCATION = uuid.uuid4().hex


@attrs.frozen
class Context:
    """The :class:`tai_core.blocks.RunContext` of a command-line run."""

    cwd: Path
    command: str
    config: Mapping[str, Any]
    hook: Any = attrs.field(repr=False)
    #: How a block asks the user (``tai_core.blocks.ask``); the runtime sets it.
    ask: Any = attrs.field(default=None, repr=False)


def resolve(app: AppContext, name: str | None, *, confidential: bool) -> tuple[Provider, ModelSpec]:
    """The provider and spec of model ``name`` (or the configured ``model``)."""
    chosen = name or app.config.get("model")
    if not chosen:
        raise click.UsageError("no model: give -model NAME or set model in tai.toml")
    try:
        spec = resolve_model(
            chosen, app.config.values, app.host.registry.providers, os.environ,
            confidential=confidential or bool(app.config.get("confidential_mode")),
        )  # fmt: skip
    except ModelConfigError as error:
        raise SetupError(str(error)) from None
    return app.host.registry.providers[spec.provider], spec


def handoff_writer(
    app: AppContext, flags: GenerationFlags, main: tuple[Provider, ModelSpec]
) -> Any:
    """The writer of handoff notes: the handoff model, else the fast model, else the run's."""
    name = app.config.get("handoff_model") or flags.fast_model or app.config.get("fast_model")
    provider, spec = resolve(app, name, confidential=flags.confidential) if name else main
    return HandoffWriter(provider, spec)


def thought_summarizer(
    app: AppContext, config: Mapping[str, Any], flags_fast_model: str | None, main: Any
) -> Any:
    """The writer of thought summaries when ``summarize_thoughts`` is on (the fast model,
    else the run's, in ``summary_language``), else ``None``."""
    if not config.get("summarize_thoughts"):
        return None
    from tai_core.pipeline._thoughts import ThoughtSummarizer

    name = flags_fast_model or config.get("fast_model")
    provider, spec = resolve(app, name, confidential=False) if name else main
    return ThoughtSummarizer(provider, spec, str(config.get("summary_language") or ""))


def open_workspace(host: PluginHost, config: Mapping[str, Any], cwd: Path) -> Any:
    """The in-memory store a run's change blocks go to (flushed when a round succeeds). It
    carries the run's plugins' checks (``FileStore.for_run``), so change blocks refuse
    secret files and a formatter starts as a block's program would."""
    from tai_core.store import FileStore

    return FileStore.for_run(cwd, host, config)


def describe_changes(workspace: Any) -> str:
    """The unified diff of everything a run changed (coloured when stderr is a terminal)."""
    from tai_core.store import render_diff

    return render_diff(workspace.changes(), sys.stderr.isatty())


def make_setup(
    host: PluginHost,
    config: Mapping[str, Any],
    model: tuple[Provider, ModelSpec],
    *,
    command: str,
    system: str,
    require_completion: bool,
    cwd: Path,
    workspace: Any = None,
    handoff: Any = None,
    describe: Any = None,
    summarize: Any = None,
) -> SessionSetup:
    """The setup of a new session of ``command`` (a fresh session id)."""
    provider, spec = model
    options = RunOptions(
        command=command, session_id=uuid.uuid4().hex[:12], require_completion=require_completion
    )

    def named_model(name: str) -> tuple[Provider, ModelSpec]:
        """A model a plugin switches one call to, resolved as ``-model`` is (confidential
        mode, ``-confidential`` or tai.toml's, holds it to zero data retention too)."""
        found = resolve_model(
            name, config, host.registry.providers, os.environ,
            confidential=bool(config.get("confidential_mode")),
        )  # fmt: skip
        return host.registry.providers[found.provider], found

    return SessionSetup(
        options=options, provider=provider, spec=spec, kinds=host.registry.block_kinds,
        system=system, context=Context(cwd, command, config, host.pm.hook), workspace=workspace,
        handoff=handoff, describe_changes=describe, summarize_thoughts=summarize,
        resolve_model=named_model,
    )  # fmt: skip


def run_session(
    app: AppContext,
    flags: GenerationFlags,
    *,
    command: str,
    system: str,
    user: str,
    require_completion: bool,
    workspace: Any = None,
    model: tuple[Provider, ModelSpec] | None = None,
) -> int:
    """Run one session to its end (with ``model``, else the one ``flags`` name); its exit
    status."""
    model = model or resolve(app, flags.model, confidential=flags.confidential)
    config = {**app.config.values, **flag_settings(flags)}
    setup = make_setup(
        app.host, config, model, command=command, system=system,
        require_completion=require_completion, cwd=Path.cwd(), workspace=workspace,
        handoff=handoff_writer(app, flags, model),
        summarize=thought_summarizer(app, config, flags.fast_model, model),
    )  # fmt: skip
    from tai_core.tui import front_end

    runtime = make_runtime(app)
    printer = front_end(runtime, Printer(thoughts=flags.thoughts), tui=flags.tui,
                        cli=flags.cli, thoughts=flags.thoughts)  # fmt: skip
    recorder = make_recorder(app, flags, system=system, user=user)
    event, _ = asyncio.run(follow(runtime, setup, user, flags.chat, printer, recorder=recorder))
    return exit_status(event)


def compaction_settings(config: Config) -> CompactionSettings:
    """``[auto_compact]`` of ``config``; a target ratio not below the threshold is a usage
    error naming the file and line that set it."""
    try:
        return CompactionSettings.of(config.values)
    except ValueError as error:
        from tai_core.config._lines import located  # the error's line: only then

        where = next(
            (found for path in config.files
             if (found := located(path, "auto_compact.target_ratio"))),
            None,
        )  # fmt: skip
        raise click.UsageError(f"{where}: {error}" if where else str(error)) from None


def make_runtime(app: AppContext, *, answers_prompts: bool = False) -> Runtime:
    """The runtime of a command: it keeps its sessions in the sessions database of tai's
    data directory unless ``keep_sessions = false`` (opened when first written, see
    :class:`~tai_core.runtime._keeper.SessionKeeper`); ``answers_prompts`` when the
    front-end passes the blocks' questions on to someone who answers them."""

    def open_store() -> Any:
        from tai_core.sessions import SessionStore, sessions_path

        return SessionStore(sessions_path())

    from tai_core.commands._reload import reloader

    keep = app.config.get("keep_sessions", True)
    return Runtime(
        app.host.pm.hook, EventBus(), store=open_store if keep else None,
        schedule_interval=app.config.get("schedule_interval", 0.0),
        compaction=compaction_settings(app.config),
        extensions=app.host.registry.extensions(),
        agents=lambda: app.host.declared("agent_commands"), reload=reloader(app, Path.cwd()),
        app=app, answers_prompts=answers_prompts,
    )  # fmt: skip


def make_recorder(
    app: AppContext, flags: GenerationFlags, *, system: str, user: str
) -> Recorder | None:
    """A recorder of the run when ``-record`` (or ``record = true``) asks for one; it is a
    client of the bus like the printer (see :mod:`tai_core.records`)."""
    wanted = flags.record if flags.record is not None else bool(app.config.get("record"))
    if not wanted:
        return None
    from tai_core.records import Recorder

    return Recorder.open(cwd=Path.cwd(), system=system, user=user, invocation=INVOCATION)


def exit_status(event: Any) -> int:
    """The exit status of a run that ended with ``event``: 0, 1 (failed) or 130."""
    if isinstance(event, RunFailed):
        return 1
    if isinstance(event, RunCancelled):
        return CANCELLED
    return 0


async def follow(
    runtime: Runtime,
    setup: SessionSetup,
    user: str,
    shown: str,
    printer: Printer,
    *,
    recorder: Recorder | None = None,
) -> tuple[Any, RunState | None]:
    """Start ``setup``'s session, submit ``user`` and print until the run ends, then close
    the session (saved, ``tai_session_end`` called); the run's terminal event and the
    session's last state. Ctrl-C cancels the run (nothing of the interrupted round is
    applied)."""
    session_id = setup.options.session_id
    subscription = runtime.bus.subscribe()
    recording = (
        asyncio.create_task(recorder.follow(runtime.bus.subscribe(), session_id))
        if recorder
        else None
    )
    cancelled: list[bool] = []

    def cancel() -> None:
        cancelled.append(True)
        runtime.handle(Cancel(session_id))

    from tai_core.commands._terminal import answering

    try:
        with cancelling_on_ctrl_c(cancel):
            runtime.handle(StartSession(setup))
            runtime.handle(Submit(session_id, user, shown))
            async with answering(runtime, session_id, printer):
                await printer.follow(subscription, session_id)
                await runtime.wait(session_id)
            state = runtime.state(session_id)
            runtime.handle(CloseSession(session_id))
            await runtime.settle()
            if recording:
                await recording
    finally:
        subscription.close()
        if cancelled and sys.platform != "win32":
            # The run is ending with status 130; a Ctrl-C that arrives twice (from the
            # terminal and forwarded by the sandbox's outer process) must not turn into a
            # KeyboardInterrupt now.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    if cancelled and not isinstance(printer.outcome, RunCancelled | RunFailed):
        # The Ctrl-C came as the run was ending, too late to stop it: the user asked to
        # stop all the same, so nothing more runs (no further goal loop) and tai ends 130.
        click.echo("tai: cancelled as the run ended: what it wrote (above) stays written", err=True)
        return RunCancelled(session_id, ""), state
    return printer.outcome, state


@contextmanager
def cancelling_on_ctrl_c(cancel: Callable[[], None]) -> Iterator[None]:
    """SIGINT calls ``cancel`` (on the running event loop) while the block runs; the
    handler in force before is in force again after it."""
    if sys.platform == "win32":
        yield
        return
    loop = asyncio.get_running_loop()
    previous = signal.getsignal(signal.SIGINT)
    loop.add_signal_handler(signal.SIGINT, cancel)
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)  # which sets Python's default handler
        signal.signal(signal.SIGINT, previous)  # the console script's (cli._interrupt)
