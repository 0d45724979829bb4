"""Per-chunk overhead of the OpenAI-compatible provider over loopback (target: < 0.1 ms).

Streams a 1-chunk and a 1000-chunk reply from the fake model server of the tests (a
stdlib HTTP/1.1 server on 127.0.0.1, Nagle off) through the ``openai`` provider — the
shared httpx client, SSE parsing, JSON decoding and event construction — 31 times each
after a warm-up, and divides the difference of the medians by 999. The server's own cost
per chunk is included, so the figure is an upper bound of the provider's. Prints one
line; exits 1 when the figure misses the target.

Run: ``uv run python benchmarks/provider_stream.py``
"""

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tai_core.models import GenerationRequest, Message, resolve_model
from tai_core.plugins import PluginHost
from tests.servers import FakeModelServer, Reply

RUNS = 31
LONG = 1000
TARGET_MS = 0.1


async def timed_streams(provider, spec, server: FakeModelServer, chunks: int) -> list[float]:
    request = GenerationRequest(system="s", messages=(Message("user", "go"),))
    reply = Reply(text="x" * chunks, chunks=chunks)
    times = []
    for _ in range(RUNS + 1):
        server.script(reply)
        start = time.perf_counter()
        count = sum([1 async for _ in provider.stream(spec, request)])
        times.append(time.perf_counter() - start)
        assert count == chunks + 2  # the chunks, usage, finish
    return times[1:]


async def measure(provider, spec, server: FakeModelServer) -> tuple[float, float]:
    short = statistics.median(await timed_streams(provider, spec, server, 1))
    long = statistics.median(await timed_streams(provider, spec, server, LONG))
    return short, long


def main() -> None:
    host = PluginHost()
    host.load_entry_points()
    providers = host.registry.providers
    with FakeModelServer("openai") as server:
        generator = {"name": "b", "type": "openai", "model": "m", "api_key": "k"}
        config = {"generators": [{**generator, "base_url": server.base_url}]}
        spec = resolve_model("b", config, providers, {})
        short, long = asyncio.run(measure(providers["openai"], spec, server))
    per_chunk_ms = (long - short) / (LONG - 1) * 1000
    print(
        f"provider_stream: {per_chunk_ms:.4f} ms per chunk (1-chunk stream {short * 1000:.2f} ms,"
        f" {LONG}-chunk {long * 1000:.1f} ms, medians of {RUNS}; target < {TARGET_MS} ms)"
    )
    sys.exit(0 if per_chunk_ms < TARGET_MS else 1)


if __name__ == "__main__":
    main()
