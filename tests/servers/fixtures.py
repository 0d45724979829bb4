"""pytest fixtures serving a started :class:`FakeModelServer` per test, one per protocol.

Load them with ``pytest_plugins = ["tests.servers.fixtures"]`` in the root conftest, or
import the fixtures into a package's ``conftest.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.servers import FakeModelServer


@pytest.fixture
def openai_server() -> Iterator[FakeModelServer]:
    """A fake server whose ``base_url`` is the OpenAI-compatible ``…/v1``."""
    with FakeModelServer("openai") as server:
        yield server


@pytest.fixture
def gemini_server() -> Iterator[FakeModelServer]:
    """A fake server whose ``base_url`` is Gemini's ``…/v1beta``."""
    with FakeModelServer("gemini") as server:
        yield server


@pytest.fixture
def azure_server() -> Iterator[FakeModelServer]:
    """A fake server whose ``base_url`` is an Azure OpenAI endpoint (the root)."""
    with FakeModelServer("azure") as server:
        yield server


@pytest.fixture
def bedrock_server() -> Iterator[FakeModelServer]:
    """A fake server whose ``base_url`` is a Bedrock runtime endpoint (the root)."""
    with FakeModelServer("bedrock") as server:
        yield server
