"""``tai web``'s server in this process, a page of it in headless chromium, and events
published on its runtime's bus from the test's thread (not a benchmark itself).

The server runs on an event loop of its own thread (Playwright's sync API holds the main
one); :meth:`WebBench.publish` hands an event to that loop and returns the wall-clock time
at which the bus had it, the clock the page's ``performance.timeOrigin + now()`` uses too.
"""

from __future__ import annotations

import asyncio
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tai_core.runtime import EventBus, Runtime
from tai_core.serve import Server
from tai_web._journal import Journal
from tai_web._server import WebServer


class WebBench:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.runtime: Runtime | None = None
        self.url = ""
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        if not self._ready.wait(30):
            raise SystemExit("web bench: the server did not start")

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._start())
        self._ready.set()
        self.loop.run_forever()

    async def _start(self) -> None:
        from aiohttp import web

        self.runtime = Runtime(None, EventBus())
        journal = Journal(self.runtime.bus.subscribe())
        self.loop.create_task(journal.run())
        pages = WebServer(Server(None, self.runtime), journal, "bench", loopback=True)
        self.runner = web.AppRunner(pages.application(), access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        port = self.runner.addresses[0][1]
        pages.listening_on(port)
        self.url = f"http://127.0.0.1:{port}/?token=bench"

    def publish(self, event: Any) -> float:
        """Publish ``event`` on the runtime's bus; the wall-clock time it was published."""
        done: list[float] = []
        published = threading.Event()

        def publish() -> None:
            assert self.runtime is not None
            self.runtime.bus.publish(event)
            done.append(time.time())
            published.set()

        self.loop.call_soon_threadsafe(publish)
        published.wait(10)
        return done[0]

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(30)


@contextmanager
def page_of(bench: WebBench) -> Iterator[Any]:
    """A connected page of ``bench``'s server in headless chromium (1280 by 800)."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium")
    if executable is None:
        raise SystemExit("web bench: no chromium (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
        context = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
        page = context.new_page()
        page.goto(bench.url)
        page.wait_for_selector("#connection[data-state=open]")
        try:
            yield page
        finally:
            browser.close()
