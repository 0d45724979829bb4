"""The ``web`` plugin: ``tai web``, the runtime's sessions in a page of the local browser.

*A client like the others.* The page sends the commands of ``tai serve -stdio``'s wire
(:mod:`tai_core.serve`) and receives its events, one JSON object per WebSocket message:
the server is :class:`tai_core.serve.Server` with a WebSocket for its transport, so
anything a JSON-lines client can do the page can do, and the two never drift apart.
Several pages (and a terminal UI or JSON-lines client of the same runtime) see the same
events because each socket is its own subscription of the runtime's bus.

*Catching up.* A page that connects late or reconnects after a drop gets, before the live
events, the events of every live session as :mod:`._journal` keeps them — compacted by
the bus's own rules (text of a round merged, only the newest tree), never dropping a
terminal event, a question or a tree — and then every event from the same instant on:
the journal is read and the socket subscribed in one step of the event loop, so nothing
falls between the two.

*Why aiohttp.* It is one maintained library for the HTTP server, the WebSocket server and
the test client, and already in tai's lock (litellm brings it), so the web client adds no
new dependency tree; starlette + uvicorn would be two libraries (three with a WebSocket
implementation) for the same. It is imported only when ``tai web`` runs: registering the
command costs nothing (``tai_core.cli.LazyCommand``).

*Safety* (:mod:`._server`): it listens on 127.0.0.1 unless ``-host`` says otherwise (with
a warning); every request needs the random token printed in the URL (the page then keeps
it in an HttpOnly, SameSite=Strict cookie); a request with an ``Origin`` or ``Host`` that
is not this server's is refused with 403 (cross-site pages, DNS rebinding), a missing or
wrong token with 401. The page writes whatever a model or a session says with
``textContent`` only, and its Content-Security-Policy allows no inline script, so a
hostile reply shows as text.

*The page* (``static/``) is plain HTML, CSS and ES modules shipped in the distribution: no
CDN, no build step. The session tree is drawn as a virtual list (only the rows in view
are in the DOM), so a session of 10,000 nodes renders as fast as one of ten.
"""

from __future__ import annotations

import click

from tai_core import hookimpl

#: The first sentence of the command's help, listed by ``tai --help``.
WEB = "Serve the runtime's sessions to a page in the local browser."


@hookimpl
def tai_register_commands(cli: click.Group) -> None:
    """Add ``tai web`` (imported when it runs)."""
    from tai_core.cli import LazyCommand

    cli.add_command(LazyCommand("web", "tai_web._command:web_command", WEB))
