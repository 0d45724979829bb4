"""Fixtures of the ping tests: the fake OpenAI-compatible server."""

from tests.servers.fixtures import openai_server

__all__ = ["openai_server"]
