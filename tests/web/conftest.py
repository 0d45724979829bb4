"""Fixtures of the web client's tests: Debian's chromium driven by Playwright, with a
screenshot of every page kept when a test fails (``test-artifacts/web/``)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO

CHROMIUM = "/usr/bin/chromium"
#: Where the screenshots of failed browser tests are kept (``TAI_TEST_ARTIFACTS`` overrides).
ARTIFACTS = Path(os.environ.get("TAI_TEST_ARTIFACTS", REPO / "test-artifacts")) / "web"


def chromium() -> str:
    """Debian's chromium, installed with apt-get when missing and allowed (as root), else
    the test is skipped with the reason."""
    found = shutil.which("chromium") or (CHROMIUM if Path(CHROMIUM).exists() else None)
    if found:
        return found
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip("no chromium, and it cannot be installed here (apt-get as root)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            pytest.skip(f"chromium could not be installed: {done.stderr.strip()[-300:]}")
    return shutil.which("chromium") or CHROMIUM


@pytest.fixture(scope="module")  # module: the sync API and asyncio.run must not overlap
def browser() -> Iterator[Any]:
    playwright_api = pytest.importorskip("playwright.sync_api")
    executable = chromium()
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.stash[_FAILED] = report.failed
    return report


_FAILED = pytest.StashKey[bool]()


@pytest.fixture
def pages(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """Opens pages (``pages()``: a new one, 1280 by 800; ``bypass_csp`` for a test that
    evaluates script in it, or that must not count on the policy); screenshots of them all are kept
    when the test fails."""
    opened: list[Any] = []
    contexts: list[Any] = []

    def new_page(*, bypass_csp: bool = False) -> Any:
        context = browser.new_context(
            viewport={"width": 1280, "height": 800}, bypass_csp=bypass_csp
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30_000)
        opened.append(page)
        return page

    yield new_page
    if request.node.stash.get(_FAILED, False):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for number, page in enumerate(opened):
            page.screenshot(path=str(ARTIFACTS / f"{request.node.name}-{number}.png"))
    for context in contexts:
        context.close()
