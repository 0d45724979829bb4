"""The page in headless chromium against a real ``tai web`` and a scripted local model:
a prompt's output streaming in, thoughts apart, the tree folded, the chart, a steer, a
cancel, a confirm answered in the page, a hostile reply shown as text, a second page
following the same session; the README's screenshot."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.servers import FakeModelServer, Reply
from tests.web._web import WebProcess, configure_web

pytestmark = pytest.mark.slow

#: Fixed "random" bytes for the page's new session ids, so the screenshot is the same.
FIXED_IDS = "crypto.getRandomValues = (array) => { array.fill(7); return array; };"
USAGE = {"input": 1200, "cache_read": 0, "output": 80}


@pytest.fixture
def web(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer
) -> Iterator[WebProcess]:
    configure_web(tmp_path, openai_server, extra='approve = "ask"\n')
    process = WebProcess(tmp_path, isolated_env)
    try:
        yield process
    finally:
        process.kill()


def open_session(page: Any, web: WebProcess, *, shell: bool = False) -> None:
    page.goto(web.url)
    page.wait_for_selector("#connection[data-state=open]")
    if shell:
        page.check("#shell")
    page.click("#new-session")
    page.wait_for_selector("#session-status:text('idle')")


def ask(page: Any, text: str) -> None:
    page.fill("#input", text)
    page.press("#input", "Enter")


def test_a_prompt_streams_into_the_page(
    web: WebProcess, pages: Any, openai_server: FakeModelServer
) -> None:
    openai_server.script(
        Reply(text="The answer comes in pieces.\nSecond line.", thoughts="Let me think.",
              chunks=6, usage=USAGE),
        Reply(text="And a second round.", usage={"input": 1300, "cache_read": 1100, "output": 40}),
    )  # fmt: skip
    page = pages()
    failed: list[str] = []  # nothing the page asks for is missing (a favicon was)
    page.on("response", lambda r: r.status >= 400 and failed.append(f"{r.status} {r.url}"))
    page.add_init_script(FIXED_IDS)
    open_session(page, web)
    ask(page, "Explain the pieces.")
    page.wait_for_selector(".outcome.finished")
    section = page.locator(".section").first
    assert section.locator(".text").text_content() == "The answer comes in pieces.\nSecond line."
    assert section.locator("details.thoughts pre").text_content() == "Let me think."
    assert section.locator(".prompt").text_content() == "Explain the pieces."
    ask(page, "Once more.")
    page.locator(".outcome.finished").nth(1).wait_for()
    # the tree: fold the first user input, its response goes; unfold, it is back
    rows = page.locator(".tree-row")
    page.wait_for_selector(".tree-row[data-kind=response]")
    before = rows.count()
    first_input = page.locator(".tree-row[data-kind=user-input]").first
    first_input.locator("button.fold").click()
    assert rows.count() < before
    first_input.locator("button.fold").click()
    assert rows.count() == before
    first_input.click()
    assert "Explain the pieces." in page.locator("#node").text_content()
    # the chart: three bars per call, the shares beside them
    page.click("#tabs button[data-tab=chart]")
    assert page.locator(".usage-chart rect.bar").count() == 6
    cells = page.locator("table.shares tbody tr").nth(1).locator("td").all_text_contents()
    assert cells == ["2", "1300", "1100", "40", "85%", "92%"]
    page.click("#tabs button[data-tab=tree]")
    page.locator(".tree-row[data-kind=response]").first.click()
    page.screenshot(path=str(REPO / "docs" / "web.png"))
    assert not failed, failed
    icon = "fetch(document.querySelector('link[rel=icon]').href).then(r => r.status)"
    assert page.evaluate(icon) == 200  # the browser's own request for one is not an event


def test_steer_then_cancel(web: WebProcess, pages: Any, openai_server: FakeModelServer) -> None:
    openai_server.script(
        Reply(text="A first answer that goes on and", fault="stall"),
        Reply(text="Steered: shorter now, and", fault="stall"),
    )
    page = pages()
    open_session(page, web)
    ask(page, "Write a lot.")
    page.wait_for_selector(".section .text:text('A first')")  # half of it, then the stall
    assert page.locator("#send").text_content() == "Steer"
    ask(page, "Keep it short.")  # while it streams, Enter steers
    page.wait_for_selector(".section .text:text('Steered')")
    assert "Keep it short." in str(openai_server.requests[1].body["messages"])
    page.click("#cancel")
    page.wait_for_selector(".outcome.cancelled")
    assert page.locator("#session-status").text_content() == "idle"


def test_a_confirm_is_answered_in_the_page(
    web: WebProcess, pages: Any, openai_server: FakeModelServer, tmp_path: Path
) -> None:
    openai_server.script(Reply(text="<<甲乙 shell\ntouch approved\n甲乙\n"), Reply(text="Done."))
    page = pages()
    open_session(page, web, shell=True)
    ask(page, "Make the file.")
    question = page.wait_for_selector("#question:not([hidden])")
    assert "touch approved" in question.text_content()
    page.click("#question button:text('Yes')")
    page.wait_for_selector(".outcome.finished")
    assert (tmp_path / "approved").exists()
    assert page.locator("#question").is_hidden()


def test_a_hostile_reply_shows_as_text(
    web: WebProcess, pages: Any, openai_server: FakeModelServer
) -> None:
    hostile = (
        '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
        '<b onmouseover="window.pwned=3">bold</b>'
    )
    openai_server.script(Reply(text=hostile))
    page = pages(bypass_csp=True)  # the text itself must be harmless, not only the policy
    open_session(page, web)
    ask(page, hostile)  # the user's text, echoed as the round's prompt, too
    page.wait_for_selector(".outcome.finished")
    assert page.locator(".section .text").text_content() == hostile
    assert page.locator(".section .prompt").text_content() == hostile
    page.locator(".tree-row[data-kind=response]").first.click()
    assert hostile in page.locator("#node").text_content()
    for tag in ("img", "script:not([src])", "b"):
        assert page.locator(f"main {tag}, #side {tag}").count() == 0, tag
    assert page.evaluate("window.pwned") is None


def test_a_second_page_follows_the_same_session(
    web: WebProcess, pages: Any, openai_server: FakeModelServer
) -> None:
    openai_server.script(Reply(text="Seen by both."), Reply(text="Also live in both."))
    first = pages()
    open_session(first, web)
    ask(first, "Hello.")
    first.wait_for_selector(".outcome.finished")
    second = pages()  # opens late: catches up from the session's state
    second.goto(web.url)
    second.wait_for_selector(".section .text:text('Seen by both.')")
    ask(second, "Again.")  # typed in the second, shown in both
    for page in (first, second):
        page.wait_for_selector(".section .text:text('Also live in both.')")
    second.reload()  # a reconnect: the same page again, from the state
    second.wait_for_selector(".section .text:text('Also live in both.')")
    assert second.locator(".outcome.finished").count() == 2


def test_a_socket_dropped_mid_stream_catches_up_once(
    web: WebProcess, pages: Any, openai_server: FakeModelServer
) -> None:
    """The page's socket is cut while a reply streams (Playwright stands between page and
    server and closes the page's side): the page reconnects, shows what streamed so far
    once, not twice, and still gets the events after the drop (a cancel's outcome)."""
    openai_server.script(Reply(text="Half of an answer, then", fault="stall"))
    sockets: list[Any] = []

    def between(route: Any) -> None:
        route.connect_to_server()
        sockets.append(route)

    page = pages()
    page.route_web_socket("**/ws", between)
    open_session(page, web)
    ask(page, "Write a lot.")
    page.wait_for_selector(".section .text:text('Half')")  # some of it, then the stall
    shown = page.locator(".section .text").text_content()
    sockets[0].close(code=4000, reason="dropped")  # the page's side only
    for _ in range(300):  # the page reconnects (after a quarter of a second)
        if len(sockets) == 2:
            break
        page.wait_for_timeout(50)
    assert len(sockets) == 2
    page.wait_for_selector("#connection[data-state=open]")
    page.wait_for_selector(".section")
    assert page.locator(".section").count() == 1
    assert page.locator(".section .text").text_content() == shown
    page.click("#cancel")
    page.wait_for_selector(".outcome.cancelled")
    assert page.locator(".section .text").text_content() == shown
