"""``tai web``: the runtime's sessions in a page of the local browser (see :mod:`tai_web`)."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import signal
import sys
from typing import Any

import click

from tai_core.serve import model_option


@click.command("web")
@click.option(
    "-port", "--port", "port", type=click.IntRange(0, 65535), default=0, show_default=True,
    help="The port to listen on (0: a free one).",
)  # fmt: skip
@click.option(
    "-host", "--host", "host", default="127.0.0.1", show_default=True,
    help="The address to listen on; anything but loopback is reachable by others (warned).",
)  # fmt: skip
@click.option(
    "-open", "--open", "open_page", is_flag=True, help="Open the page in the browser.",
)  # fmt: skip
@model_option
@click.pass_obj
def web_command(app: Any, port: int, host: str, open_page: bool, model: str | None) -> None:
    """Serve the runtime's sessions to a page in the local browser."""
    sys.exit(asyncio.run(serve(app, host, port, open_page=open_page, model=model)))


async def serve(app: Any, host: str, port: int, *, open_page: bool, model: str | None) -> int:
    """Serve until interrupted; the exit status (130 after Ctrl-C, 0 after SIGTERM)."""
    from aiohttp import web

    from tai_core.commands._session import make_runtime
    from tai_core.serve import Server
    from tai_web._journal import Journal
    from tai_web._server import LOOPBACK, WebServer

    runtime = make_runtime(app, answers_prompts=True)
    journal = Journal(runtime.bus.subscribe())
    token = secrets.token_urlsafe(24)
    loopback = host in LOOPBACK
    pages = WebServer(Server(app, runtime, model), journal, token, loopback=loopback)
    runner = web.AppRunner(pages.application(), access_log=None, handle_signals=False)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
    except OSError as error:
        await runner.cleanup()
        message = f"cannot listen on {host}:{port}: {error.strerror or error}"
        raise click.ClickException(message) from None
    bound = runner.addresses[0][1]
    pages.listening_on(bound)
    if not loopback:
        click.echo(f"tai: warning: listening on {host}:{bound}, beyond this machine's loopback: "
                   "whoever reaches it with the token can run the model and its blocks here",
                   err=True)  # fmt: skip
    stopped = _stop_on_signals()  # before the URL: a client may signal as soon as it reads it
    url = f"http://{'127.0.0.1' if loopback or host in ('0.0.0.0', '::') else host}:{bound}/"
    click.echo(f"tai web: {url}?token={token}  (Ctrl-C stops it)")
    sys.stdout.flush()
    if open_page:
        import webbrowser

        webbrowser.open(f"{url}?token={token}")
    keeping = asyncio.get_running_loop().create_task(journal.run())
    try:
        status = await stopped
    finally:
        for number in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_signal_handler(number)
    await runtime.shutdown()
    runtime.bus.close()
    await runner.cleanup()
    await keeping
    return status


def _stop_on_signals() -> asyncio.Future[int]:
    """A future that SIGINT sets to 130 and SIGTERM to 0."""
    loop = asyncio.get_running_loop()
    stop: asyncio.Future[int] = loop.create_future()
    for number, status in ((signal.SIGINT, 130), (signal.SIGTERM, 0)):
        loop.add_signal_handler(number, lambda s=status: stop.done() or stop.set_result(s))
    return stop
