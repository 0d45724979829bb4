"""The interactive runtime: commands in, typed events out, on an asyncio bus.

The shape follows the agent coordinator of tau: one runtime owns the sessions and the
pipeline tasks; any number of clients send commands and render events; the pipeline itself
never prints. Delivery rules are in ``_bus``; the event types in :mod:`tai_core.events`.

* ``_commands`` — the commands, and the setup a session starts from;
* ``_runtime`` — what each command does, one task per running session;
* ``_keeper`` — sessions saved to and read from the sessions database, off the loop;
* ``_bus`` — delivery to the clients.
"""

from tai_core.events import (
    TERMINAL_EVENTS,
    BlockFinished,
    BlockParsed,
    BlockStarted,
    ChangesWritten,
    Event,
    ExtensionCommandFinished,
    Notice,
    ParseFailed,
    RoundEnded,
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
    TextReceived,
    ThoughtReceived,
    ThoughtSummarized,
    TreeChanged,
    UsageReported,
)
from tai_core.runtime._bus import EventBus, Subscription
from tai_core.runtime._commands import (
    Cancel,
    CloseSession,
    Command,
    DeleteSession,
    ExportSession,
    ListSessions,
    LoadSession,
    ResetSession,
    RunExtensionCommand,
    SessionSetup,
    StartSession,
    Steer,
    Submit,
    UpdateSession,
)
from tai_core.runtime._keeper import NoSessionStore
from tai_core.runtime._runtime import Runtime

__all__ = [
    "TERMINAL_EVENTS",
    "BlockFinished",
    "BlockParsed",
    "BlockStarted",
    "Cancel",
    "ChangesWritten",
    "CloseSession",
    "Command",
    "DeleteSession",
    "Event",
    "EventBus",
    "ExportSession",
    "ExtensionCommandFinished",
    "ListSessions",
    "LoadSession",
    "NoSessionStore",
    "Notice",
    "ParseFailed",
    "ResetSession",
    "RoundEnded",
    "RoundStarted",
    "RunCancelled",
    "RunExtensionCommand",
    "RunFailed",
    "RunFinished",
    "Runtime",
    "SessionClosed",
    "SessionDeleted",
    "SessionExported",
    "SessionLoaded",
    "SessionReset",
    "SessionSetup",
    "SessionStarted",
    "SessionStatusChanged",
    "SessionUpdated",
    "SessionsListed",
    "StartSession",
    "Steer",
    "Submit",
    "Subscription",
    "TextReceived",
    "ThoughtReceived",
    "ThoughtSummarized",
    "TreeChanged",
    "UpdateSession",
    "UsageReported",
]
