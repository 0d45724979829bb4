"""A provider that raises something other than ``ProviderError`` fails its call in one line
that names the provider and the exception, and the call is retried like a transport
error — in-process through ``generate`` and as a user meets it in ``tai next``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tai_core.models import (
    Finish,
    GenerationRequest,
    Message,
    ModelSpec,
    ProviderError,
    RetryPolicy,
    TextDelta,
    generate,
)
from tests.conftest import run_tai
from tests.installed import plugin_distribution

FAST = RetryPolicy(attempts=3, base_delay=0.001, max_delay=0.01)
SPEC = ModelSpec(name="flaky", provider="flaky", type="flaky", model="m")
REQUEST = GenerationRequest(system="", messages=(Message("user", "hi"),))


class Flaky:
    """Raises ``RuntimeError`` on its first ``failures`` calls, then answers."""

    name = "flaky"

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    async def stream(self, spec: ModelSpec, request: GenerationRequest) -> Any:
        self.calls += 1
        if self.calls <= self.failures:
            raise RuntimeError(f"socket went away (call {self.calls})")
        yield TextDelta("hello")
        yield Finish("stop")


def events(provider: Flaky, seen: list[ProviderError]) -> list[Any]:
    async def run() -> list[Any]:
        on_retry = lambda attempt, delay, error: seen.append(error)  # noqa: E731
        stream = generate(provider, SPEC, REQUEST, policy=FAST, on_retry=on_retry)
        return [event async for event in stream]

    return asyncio.run(run())


def test_a_foreign_exception_is_retried_as_a_named_provider_error() -> None:
    seen: list[ProviderError] = []
    assert TextDelta("hello") in events(Flaky(failures=2), seen)
    assert [str(error) for error in seen] == [
        "flaky m: provider 'flaky' raised RuntimeError: socket went away (call 1)",
        "flaky m: provider 'flaky' raised RuntimeError: socket went away (call 2)",
    ]


def test_when_the_attempts_run_out_the_last_one_is_raised() -> None:
    provider = Flaky(failures=5)
    with pytest.raises(ProviderError, match=r"raised RuntimeError: socket went away \(call 3\)"):
        events(provider, [])
    assert provider.calls == FAST.attempts


def test_a_failure_after_output_is_not_retried() -> None:
    class Cut(Flaky):
        async def stream(self, spec: ModelSpec, request: GenerationRequest) -> Any:
            self.calls += 1
            yield TextDelta("half")
            raise KeyError("missing")

    provider = Cut(failures=0)
    with pytest.raises(ProviderError, match="raised KeyError"):
        events(provider, [])
    assert provider.calls == 1


BROKEN_PROVIDER = """
from tai_core import hookimpl
from tai_core.models import ModelSpec

class Broken:
    name = "broken"
    description = "raises where it should stream"
    types = ("broken",)
    prefixes = ("broken",)
    short_names = {}

    def spec(self, name, fields, config, environ):
        # retried as any provider's failure is, without the default half-second waits
        return ModelSpec(name=name, provider="broken", type="broken", model=fields["model"],
                         retry_delay=0.01)

    async def stream(self, spec, request):
        raise ZeroDivisionError("a bug in the plugin")
        yield

@hookimpl
def tai_register_providers(register):
    register(Broken())
"""


def test_tai_next_with_a_raising_provider_ends_in_one_line(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    plugin_distribution(tmp_path / "site", BROKEN_PROVIDER, name="broken")
    project = tmp_path / "project"
    project.mkdir()
    env = {**isolated_env, "PYTHONPATH": str(tmp_path / "site"), "TAI_NO_SANDBOX": "1"}
    result = run_tai("next", "-model", "broken:m", "chat", "hi", cwd=project, env=env)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("tai: error:")]
    assert "provider 'broken' raised ZeroDivisionError: a bug in the plugin" in line
    assert result.stderr.count("a bug in the plugin") >= 2  # retried, each retry said
