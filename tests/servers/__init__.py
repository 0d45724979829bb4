"""Fake model servers for the tests of every part of tai.

Real providers are unreachable from tests (and should be), so tests point a generator's
``base_url`` at :class:`FakeModelServer`: a stdlib HTTP/1.1 server on 127.0.0.1 that
speaks the wire formats tai's providers use — OpenAI ``/v1/chat/completions`` (streamed
and not; Ollama's ``/v1`` is the same), Azure ``/openai/deployments/{d}/chat/completions``,
Gemini ``/v1beta/models/{m}:streamGenerateContent?alt=sse`` and Bedrock
``/model/{id}/converse-stream`` (AWS event-stream) — and answers each request with the next
scripted :class:`Reply`, faults included::

    with FakeModelServer("openai") as server:
        server.script(Reply(text="hello", thoughts="hm", chunks=4), Reply(fault="429"))
        ...  # base_url = server.base_url
        assert server.requests[0].body["model"] == "m"

The pytest fixtures ``openai_server``, ``gemini_server``, ``azure_server`` and
``bedrock_server`` live in :mod:`tests.servers.fixtures`.
"""

from tests.servers._server import FakeModelServer, Recorded
from tests.servers._wire import Reply

__all__ = ["FakeModelServer", "Recorded", "Reply"]
