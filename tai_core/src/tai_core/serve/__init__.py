"""``tai serve -stdio``: the runtime for programs that are not written in Python.

An editor, a script or another front-end drives tai by writing commands as JSON lines to
its standard input and reading events as JSON lines from its standard output — the same
commands and events the terminal clients use, so anything they can do it can do. Why
JSON lines: every language reads and writes them, a line is a message (no framing to get
wrong), and a transcript of a session is a file that can be replayed.

The invariants: a client's bad line never ends the server (it is answered by an ``error``
notice); the event lines are written by one task, whole, in the bus's order; the
reference (``docs/serve-protocol.md``) is generated from the classes, so it cannot drift.

* ``_wire`` — the commands and the encoding of events;
* ``_server`` — :class:`Server`, which every transport shares (the web client's
  WebSocket too), and the loop of standard input;
* ``_command`` — ``tai serve``, which the core plugin registers (the names here are
  imported on first use, so registering it costs no runtime: ``tai_core._lazy``).
"""

from tai_core._lazy import lazy_exports

TYPE_CHECKING = False  # not typing's: see tai_core._lazy
if TYPE_CHECKING:
    from tai_core.serve._command import model_option
    from tai_core.serve._server import Server, serve_stdio
    from tai_core.serve._wire import EVENTS, REQUESTS, BadRequest, Encoder, decode

__all__ = [
    "EVENTS",
    "REQUESTS",
    "BadRequest",
    "Encoder",
    "Server",
    "decode",
    "model_option",
    "serve_stdio",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "tai_core.serve._command": ["model_option"],
        "tai_core.serve._server": ["Server", "serve_stdio"],
        "tai_core.serve._wire": ["EVENTS", "REQUESTS", "BadRequest", "Encoder", "decode"],
    },
)
