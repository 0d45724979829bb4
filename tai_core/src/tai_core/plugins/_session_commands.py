"""The value a plugin registers for a command users type in a session (``/NAME args``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs


@attrs.frozen
class SessionCommand:
    """A command of a session, run by the runtime's ``RunExtensionCommand`` (``/NAME`` in
    ``tai ai``, ``{"type": "command"}`` in ``tai serve -stdio``).

    ``run(session, args)`` gets the session's read-only options (its id, command, working
    directory) and the text after the name, runs in a worker thread (it may block), and
    returns the text to show the user (``None`` for none). Anything it raises is shown as
    one error line naming the plugin; the session goes on.
    """

    #: The word users type after ``/`` (no spaces).
    name: str
    #: One line for ``/help``.
    description: str
    run: Callable[[Any, str], str | None]
