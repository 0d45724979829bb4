"""The server of the runtime's wire: messages in, commands to the runtime, events out.

:class:`Server` is the part every transport shares: it decodes a message, carries it to
the runtime and answers what fails with an ``error`` notice; the transport only delivers
messages to :meth:`Server.receive` and writes the events it encodes (:func:`run_lines`
here for ``tai serve -stdio``; the web client's WebSocket is another).

Standard input is read in a worker thread, a line at a time; every command is handled as
it comes (a submit starts a turn and the next command is read at once, so a ``cancel`` or
a ``steer`` reaches a streaming turn; a list, load, delete or export is done before the
next line is read). Every event of the runtime's bus is written to standard output as one
line and flushed, by one task, so lines never interleave; a line that is not a command,
or a command that fails, is answered by an ``error`` notice and the server goes on. At
the end of the input the server lets the running turns end, closes every session (saved)
and exits 0.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, TextIO

import attrs
import click

from tai_core.events import Notice
from tai_core.runtime import (
    Cancel,
    CloseSession,
    CompactSession,
    DeleteSession,
    ExportSession,
    ListSessions,
    LoadSession,
    NoSessionStore,
    ReloadExtensions,
    ResetSession,
    RespondToPrompt,
    RunExtensionCommand,
    Runtime,
    StartSession,
    Steer,
    Submit,
    Subscription,
    UpdateSession,
)
from tai_core.runtime._agents import agent_switch
from tai_core.serve._wire import (
    BadRequest,
    CancelRun,
    Close,
    Compact,
    Delete,
    Encoder,
    Export,
    ListKept,
    Load,
    Reload,
    Request,
    Reset,
    Respond,
    RunCommand,
    Start,
    SteerText,
    SubmitText,
    Update,
    decode,
)


class Server:
    """Carries the commands of ``app``'s clients to ``runtime``, whatever their transport."""

    def __init__(self, app: Any, runtime: Runtime, model: str | None = None) -> None:
        self._app = app
        #: The model of a ``start`` or ``load`` that names none (``-model``).
        self.model = model
        self.runtime = runtime
        #: How a started session's submit is made while its conversation is empty (its
        #: rules go first): the first one, one after a first turn that kept nothing
        #: (failed, cancelled), one after a reset.
        self._first: dict[str, Any] = {}

    @property
    def app(self) -> Any:
        """What new sessions are built from: the runtime's, since a reload replaces it."""
        return self.runtime.app if self.runtime.app is not None else self._app

    async def receive(self, message: str) -> None:
        """Carry out one message of a client (a blank one is nothing): a list, load, delete
        or export is done when this returns (so a submit right after a load finds the
        session); turns run on."""
        if message.strip():
            await self._serve(message)
            await self.runtime.errands_done()

    def _error(self, session_id: str, message: str) -> None:
        self.runtime.bus.publish(Notice(session_id, "error", message))

    async def _serve(self, line: str) -> None:
        try:
            request = decode(line)
        except BadRequest as error:  # answered in the session it names, when it names one
            self._error(error.session_id, str(error))
            return
        session_id = getattr(request, "session_id", None) or ""
        try:
            if isinstance(request, Load | Delete | Export):
                found = await self._kept(request.session_id)
                if found is None:
                    return
                request = attrs.evolve(request, session_id=found)
            self._handle(request)
        except click.ClickException as error:  # a model that cannot be resolved, …
            self._error(session_id, error.format_message())
        except Exception as error:  # noqa: BLE001 - one bad command never ends the server
            self._error(session_id, f"internal error: {type(error).__name__}: {error}")

    async def _kept(self, given: str) -> str | None:
        """The kept session ``given`` names, whole or by an unambiguous prefix (as
        ``tai sessions`` takes them); ``None``, said as an error, when none or several."""
        if not given:
            self._error(given, "no session ''")
            return None
        try:
            found = await self.runtime.keeper.call(lambda store: store.ids_starting(given))
        except NoSessionStore as error:
            self._error(given, str(error))
            return None
        if given in found or len(found) == 1:
            return given if given in found else found[0]
        if not found:
            self._error(given, f"no session {given!r}")
        else:
            self._error(given, f"{given!r} names {len(found)} sessions: {', '.join(found[:5])}")
        return None

    def _handle(self, request: Request) -> None:
        runtime = self.runtime
        if isinstance(request, Start):
            self._start(request)
        elif isinstance(request, SubmitText):
            first = self._first.get(request.session_id)
            state = runtime.state(request.session_id)
            bare = first is None or state is None or state.messages
            text = request.text if bare else first(request.text)
            runtime.handle(Submit(request.session_id, text, request.text))
        elif isinstance(request, Load):
            setup = self._chat(
                request.model or self.model, memory=True, session_id=request.session_id
            )
            runtime.handle(LoadSession(request.session_id, setup.setup))
        elif isinstance(request, Update):
            model = None
            if request.model is not None:
                from tai_core.commands._session import resolve

                model = resolve(self.app, request.model, confidential=False)
            runtime.handle(
                UpdateSession(
                    request.session_id, model=model, temperature=request.temperature,
                    max_output_tokens=request.max_output_tokens,
                    reasoning_effort=request.reasoning_effort,
                )
            )  # fmt: skip
        elif isinstance(request, RunCommand) and (switch := agent_switch(
            runtime.extensions.agents, _plain_command(request)
        )):  # fmt: skip
            runtime.handle(switch)  # carried out at once: AgentActivated, or an error
            if switch.name and switch.arguments and runtime.agent(switch.session_id) == switch.name:
                self._handle(SubmitText(switch.session_id, switch.arguments))
        else:
            if isinstance(request, Close):
                self._first.pop(request.session_id, None)
            runtime.handle(_plain_command(request))

    def _start(self, request: Start) -> None:
        if request.command != "ai":
            self._error(request.session_id or "", "start: only ai sessions are served")
            return
        chat = self._chat(
            request.model or self.model, memory=request.memory, shell=request.shell,
            session_id=request.session_id,
        )  # fmt: skip
        session_id = chat.setup.options.session_id
        self._first[session_id] = chat.first_text
        self.runtime.handle(StartSession(chat.setup))

    def _chat(
        self, model: str | None, *, memory: bool, shell: bool = False, session_id: str | None
    ) -> Any:
        import attrs

        from tai_core.commands.ai import make_chat_setup, remember

        chat = make_chat_setup(self.app, model, shell=shell, memory=memory)
        if session_id:
            options = attrs.evolve(chat.setup.options, session_id=session_id)
            chat = attrs.evolve(chat, setup=attrs.evolve(chat.setup, options=options))
        if memory:
            remember(self.app, chat.setup.options.session_id)
        return chat


def _plain_command(request: Request) -> Any:
    """The runtime command of a request that needs nothing but its fields."""
    if isinstance(request, SteerText):
        return Steer(request.session_id, request.text)
    if isinstance(request, CancelRun):
        return Cancel(request.session_id)
    if isinstance(request, Close):
        return CloseSession(request.session_id)
    if isinstance(request, Reset):
        return ResetSession(request.session_id)
    if isinstance(request, Compact):
        return CompactSession(request.session_id, request.instructions)
    if isinstance(request, ListKept):
        return ListSessions(request.limit, request.cwd)
    if isinstance(request, Delete):
        return DeleteSession(request.session_id)
    if isinstance(request, Reload):
        return ReloadExtensions()
    if isinstance(request, Respond):
        return RespondToPrompt(request.session_id, request.prompt_id, request.answer)
    if isinstance(request, RunCommand):
        return RunExtensionCommand(request.session_id, request.command, request.args)
    assert isinstance(request, Export)
    return ExportSession(request.session_id, request.path)


async def run_lines(server: Server, reader: TextIO, writer: TextIO) -> int:
    """Serve commands read as lines from ``reader``, events written as lines to
    ``writer``, until the input ends; the exit status."""
    runtime = server.runtime
    subscription = runtime.bus.subscribe()
    writing = asyncio.get_running_loop().create_task(_write(subscription, writer))
    try:
        while line := await asyncio.to_thread(reader.readline):
            await server.receive(line)
        runtime.prompts.close()  # the end of the input: nobody answers the open questions
        await runtime.settle()  # and the turns end as they would
    finally:
        await runtime.shutdown()
        runtime.bus.close()
        await writing
    return 0


async def _write(subscription: Subscription, writer: TextIO) -> None:
    encoder = Encoder()
    async for event in subscription:
        writer.write(encoder.encode(event) + "\n")
        writer.flush()


def serve_stdio(app: Any, model: str | None = None) -> int:
    """Serve standard input and output until the input ends (``model``: the default)."""
    from tai_core.commands._session import make_runtime

    server = Server(app, make_runtime(app, answers_prompts=True), model)
    return asyncio.run(run_lines(server, sys.stdin, sys.stdout))
