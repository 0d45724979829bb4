"""Per-chunk cost of the OpenAI-compatible provider over loopback (target: < 0.1 ms).

Method: the tests' fake model server runs in a process of its own (``_server.py``), one
serving a 1-chunk and one a 1000-chunk reply. Each round streams both through the
``openai`` provider — its HTTP transport (h11, a kept connection), SSE decoding, JSON and event
construction — and both through the baseline, the same request read with a bare
``httpx.AsyncClient`` (lines, ``json.loads`` of each data line: the least any client
does), in turn; a round's per-chunk time is (1000-chunk - 1-chunk) / 999, which leaves
out the request's fixed cost. 31 rounds after a warm-up round; medians (min-max). The
server's work is in the other process, so the figure is the client's.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import finish
from _server import Served
from _timing import Series, ratio

RUNS = 31
LONG = 1000
TARGET = "< 0.1 ms"
TARGET_MS = 0.1


async def provider_seconds(provider: Any, spec: Any, chunks: int) -> float:
    from tai_core.models import GenerationRequest, Message

    request = GenerationRequest(system="s", messages=(Message("user", "go"),))
    start = time.perf_counter()
    count = sum([1 async for _ in provider.stream(spec, request)])
    elapsed = time.perf_counter() - start
    if count != chunks + 2:  # the chunks, usage, finish
        raise SystemExit(f"the provider gave {count} events for {chunks} chunks")
    return elapsed


async def bare_seconds(client: Any, base_url: str, chunks: int) -> float:
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "go"}]}
    start = time.perf_counter()
    count = 0
    async with client.stream("POST", f"{base_url}/chat/completions", json=body) as response:
        async for line in response.aiter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                count += bool(json.loads(line[6:])["choices"])
    elapsed = time.perf_counter() - start
    if count < chunks:
        raise SystemExit(f"the bare client read {count} chunks of {chunks}")
    return elapsed


async def measure(short: Served, long: Served) -> dict[str, list[float]]:
    import httpx

    from tai_core.models import resolve_model
    from tai_core.plugins import PluginHost

    host = PluginHost()
    host.load_entry_points()
    providers = host.registry.providers
    provider = providers["openai"]
    specs = {}
    for served in (short, long):
        generator = {"name": "b", "type": "openai", "model": "m", "api_key": "k",
                     "base_url": served.base_url}  # fmt: skip
        specs[served] = resolve_model("b", {"generators": [generator]}, providers, {})
    per_chunk: dict[str, list[float]] = {"provider": [], "bare": []}
    async with httpx.AsyncClient() as client:
        for run in range(RUNS + 1):
            one = await provider_seconds(provider, specs[short], 1)
            many = await provider_seconds(provider, specs[long], LONG)
            bare_one = await bare_seconds(client, short.base_url, 1)
            bare_many = await bare_seconds(client, long.base_url, LONG)
            if run:  # the first round warms up
                per_chunk["provider"].append((many - one) / (LONG - 1))
                per_chunk["bare"].append((bare_many - bare_one) / (LONG - 1))
    return per_chunk


def main() -> None:
    with Served(text="x", chunks=1) as short, Served(text="x" * LONG, chunks=LONG) as long:
        found = asyncio.run(measure(short, long))
    provider, bare = Series(tuple(found["provider"])), Series(tuple(found["bare"]))
    finish(
        f"provider_stream: {provider.text('ms', 4)} per chunk = "
        f"{ratio(provider, bare).text('x', 1)} a bare httpx read of the same stream "
        f"({bare.text('ms', 4)}); medians (min-max) of "
        f"{RUNS} alternated rounds, server in its own process; target < {TARGET_MS} ms",
        {f"< {TARGET_MS} ms": provider.median * 1000 < TARGET_MS},
    )


if __name__ == "__main__":
    main()
