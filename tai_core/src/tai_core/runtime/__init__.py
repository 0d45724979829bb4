"""The interactive runtime: commands in, typed events out, on an asyncio bus.

The shape follows the agent coordinator of tau: one runtime owns the sessions and the
pipeline tasks; any number of clients send commands and render events; the pipeline itself
never prints. Delivery rules are in ``_bus``; the event types in :mod:`tai_core.events`.
"""

from tai_core.events import (
    TERMINAL_EVENTS,
    BlockFinished,
    BlockParsed,
    BlockStarted,
    ChangesWritten,
    Event,
    Notice,
    ParseFailed,
    RoundEnded,
    RoundStarted,
    RunCancelled,
    RunFailed,
    RunFinished,
    SessionClosed,
    SessionStarted,
    TextReceived,
    ThoughtReceived,
    TreeChanged,
    UsageReported,
)
from tai_core.runtime._bus import EventBus, Subscription
from tai_core.runtime._runtime import (
    Cancel,
    CloseSession,
    Command,
    Runtime,
    SessionSetup,
    StartSession,
    Submit,
)

__all__ = [
    "TERMINAL_EVENTS",
    "BlockFinished",
    "BlockParsed",
    "BlockStarted",
    "Cancel",
    "ChangesWritten",
    "CloseSession",
    "Command",
    "Event",
    "EventBus",
    "Notice",
    "ParseFailed",
    "RoundEnded",
    "RoundStarted",
    "RunCancelled",
    "RunFailed",
    "RunFinished",
    "Runtime",
    "SessionClosed",
    "SessionSetup",
    "SessionStarted",
    "StartSession",
    "Submit",
    "Subscription",
    "TextReceived",
    "ThoughtReceived",
    "TreeChanged",
    "UsageReported",
]
