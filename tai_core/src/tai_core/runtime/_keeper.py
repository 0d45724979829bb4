"""Sessions kept in the sessions database, written off the event loop.

The runtime asks for a save at every change of a session that must survive (its start, a
submit, the end of a turn, a reset, an update, its close); the :class:`SessionKeeper` runs
the writes in a worker thread (a database lock held by another tai may make a write wait
seconds, and the loop streams meanwhile), one at a time and in the order they were asked
for — reads and deletions included, so that a deletion asked after a save is never undone
by it. A failed save is a warning, never the end of a session: it goes on, unsaved.
"""

from __future__ import annotations

import asyncio
from asyncio import CancelledError
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tai_core._atomic import write_atomically
from tai_core._time import now

if TYPE_CHECKING:
    from tai_core.models import Message, ModelSpec
    from tai_core.pipeline import RunState
    from tai_core.runtime._commands import SessionSetup
    from tai_core.sessions import SessionHeader, SessionStore
    from tai_core.tree import NodeSpec, SessionTree

T = TypeVar("T")


class NoSessionStore(RuntimeError):
    """The runtime keeps no sessions (it was made without a store)."""


class SessionKeeper:
    """Writes to and reads from the sessions database in a worker thread, one call at a
    time in the order asked. ``store`` is the open database, a function that opens it
    (called in the worker thread at the first use, so that a command that never gets
    that far never imports ``sqlite3``), or ``None``: sessions are not kept. ``warn``
    receives what went wrong with a save or with opening the database."""

    def __init__(
        self,
        store: SessionStore | Callable[[], SessionStore] | None,
        warn: Callable[[str, str], None],
    ) -> None:
        self._store = store
        self._warn = warn
        self._tail: asyncio.Task[Any] | None = None

    @property
    def keeps(self) -> bool:
        """Whether sessions are kept (a database that failed to open keeps none)."""
        return self._store is not None

    def _opened(self, session_id: str) -> SessionStore | None:
        """The database, opened now if need be (in the worker thread)."""
        from tai_core.sessions import SessionStore

        if self._store is None or isinstance(self._store, SessionStore):
            return self._store
        try:
            self._store = self._store()
        except Exception as error:  # noqa: BLE001 - tai goes on without sessions
            self._store = None
            self._warn(session_id, f"sessions are not kept: {error}")
        return self._store

    def save(
        self, header: SessionHeader, messages: tuple[Message, ...], tree: SessionTree,
        *, new: bool = False,
    ) -> None:  # fmt: skip
        """Write the session (in the background, after what was asked before); a ``new``
        one never replaces a kept session of its id (``SessionStore.save``)."""
        if self.keeps:

            def write() -> None:
                store = self._opened(header.id)
                if store is not None:
                    store.save(header, messages, tree, new=new)

            self._chain(write, header.id)

    async def call(self, action: Callable[[SessionStore], T]) -> T:
        """``action(store)``, after what was asked before; :class:`NoSessionStore` when
        sessions are not kept."""

        def run() -> T:
            store = self._opened("")
            if store is None:
                raise NoSessionStore("sessions are not kept by this runtime")
            return action(store)

        result: T = await self._chain(run)
        return result

    def _chain(self, action: Callable[[], T], saving: str | None = None) -> asyncio.Task[T]:
        """``action`` in a worker thread once everything asked before has ended (a save's
        failure is reported for session ``saving`` and not raised)."""
        previous = self._tail

        async def run() -> Any:
            if previous is not None:
                await asyncio.gather(previous, return_exceptions=True)
            if saving is None:
                return await asyncio.to_thread(action)
            try:
                return await asyncio.to_thread(action)
            except Exception as error:  # noqa: BLE001 - a session goes on unsaved
                self._warn(saving, f"the session could not be saved: {error}")
                return None

        task = self._tail = asyncio.get_running_loop().create_task(run())
        return task

    async def drain(self) -> None:
        """Until everything asked for so far has ended."""
        while self._tail is not None and not self._tail.done():
            await asyncio.gather(self._tail, return_exceptions=True)


def parameters(spec: ModelSpec) -> dict[str, Any]:
    """The call parameters of ``spec`` that are set."""
    values = {
        "temperature": spec.temperature,
        "max_output_tokens": spec.max_generate_tokens,
        "reasoning_effort": spec.reasoning_effort,
    }
    return {name: value for name, value in values.items() if value is not None}


def generator_node(spec: ModelSpec) -> NodeSpec:
    """The event node a new session's tree starts with: the model it talks to, and how."""
    from tai_core.tree import NodeKind, NodeSpec

    facts = {"event": "generator", "provider": spec.provider, "model": spec.model}
    facts.update({name: str(value) for name, value in parameters(spec).items()})
    return NodeSpec(NodeKind.EVENT, body=f"{spec.name}: {spec.provider} {spec.model}", attrs=facts)


def session_header(
    setup: SessionSetup,
    spec: ModelSpec,
    state: RunState,
    *,
    status: str,
    error: BaseException | None,
    created_at: str,
    earlier: tuple[int, int, float | None],
    agent: str = "",
) -> SessionHeader:
    """The header of a session run by ``setup`` with ``spec``, in ``state`` now;
    ``earlier`` are the tokens and cost of turns run before this process loaded it;
    ``agent`` the agent command its turns run under (kept with the call parameters, so
    that taking the session up can say it is not under it any more)."""
    from tai_core.sessions import SessionHeader

    input_tokens, output_tokens, cost = earlier
    rows = state.usage_rows
    costs = [row.cost for row in rows if row.cost is not None]
    return SessionHeader(
        id=setup.options.session_id,
        command=setup.options.command,
        provider=spec.provider,
        model=spec.name,
        cwd=str(getattr(setup.context, "cwd", "")),
        system_prompt=setup.system,
        parameters={**parameters(spec), **({"agent": agent} if agent else {})},
        status=status,
        created_at=created_at,
        updated_at=now(),
        # a failed turn's error stays after the session is closed; a cancellation is none
        last_error=str(error) if error and not isinstance(error, CancelledError) else None,
        rounds=state.round,
        input_tokens=input_tokens + sum(row.usage.input for row in rows),
        output_tokens=output_tokens + sum(row.usage.output for row in rows),
        cost=(cost or 0.0) + sum(costs) if costs or cost is not None else None,
    )


def export_to(store: SessionStore, session_id: str, path: str) -> None:
    """Write ``session_id``'s JSON lines to ``path``, never half written; an ``OSError``
    names the path the user gave (not the temporary file beside it) and says why."""
    import errno

    from tai_core.sessions import export_lines

    try:
        write_atomically(Path(path), lambda file: file.writelines(export_lines(store, session_id)))
    except OSError as error:
        why = error.strerror or str(error)
        if error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):  # the sandbox, or the user
            why += (
                " (inside tai's sandbox only the working directory and tai's own directories "
                "are writable: export there)"
            )
        raise OSError(f"cannot write {path}: {why}") from None
