"""Thought summaries in a run (``SessionSetup.summarize_thoughts``), through the runtime
against a local model server: each summary is published with its session and round, kept
as an event node of the tree, written from the thoughts only; none without a summariser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from tai_core.commands._session import make_setup
from tai_core.models import resolve_model
from tai_core.runtime import Runtime, Submit, ThoughtSummarized
from tests.runtime.conftest import drive_server_session
from tests.servers import FakeModelServer, Reply

THOUGHTS = "First I read the question.\n\nThen I weigh the options."


def run(host: Any, server: FakeModelServer, tmp_path: Path, summarize: Any) -> tuple:
    asked: list[str] = []

    async def summarizer(thoughts: str) -> str | None:
        asked.append(thoughts)
        return f"summary of {len(thoughts)} characters"

    async def scenario(runtime: Runtime) -> None:
        session = runtime._sessions["s"]
        session.pipeline.runner.summarize = summarizer if summarize else None
        runtime.handle(Submit("s", "which?"))
        await runtime.wait("s")
        trees.append(runtime.state("s").tree)

    trees: list[Any] = []
    server.script(Reply(thoughts=THOUGHTS, text="The second."))
    events = drive_server_session(host, server, tmp_path, scenario)
    return events, asked, trees[0]


def test_summaries_are_published_and_kept(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    events, asked, tree = run(host, openai_server, tmp_path, summarize=True)
    assert "".join(asked) == THOUGHTS  # the thoughts, all of them, and nothing else
    summaries = [e for e in events if isinstance(e, ThoughtSummarized)]
    assert summaries and all((e.session_id, e.round) == ("s", 1) for e in summaries)
    assert [e.summary for e in summaries] == [f"summary of {len(t)} characters" for t in asked]
    kept = [node.body for _, node in tree if node.attrs.get("event") == "thought-summary"]
    assert kept == [e.summary for e in summaries]


def test_no_summariser_no_summaries(
    host: Any, tmp_path: Path, openai_server: FakeModelServer
) -> None:
    events, asked, tree = run(host, openai_server, tmp_path, summarize=False)
    assert asked == [] and not [e for e in events if isinstance(e, ThoughtSummarized)]
    assert not [n for _, n in tree if n.attrs.get("event") == "thought-summary"]


def test_the_setup_gives_the_runner_its_summariser(host: Any, tmp_path: Path) -> None:
    (tmp_path / "x.replay").write_text("@@@ reply\nok\n")
    spec = resolve_model(f"replay:{tmp_path / 'x.replay'}", {}, host.registry.providers, {})

    async def summarizer(thoughts: str) -> str | None:
        return thoughts

    setup = make_setup(
        host, {}, (host.registry.providers[spec.provider], spec), command="next", system="S",
        require_completion=False, cwd=tmp_path, summarize=summarizer,
    )  # fmt: skip
    runtime = Runtime(host.pm.hook)
    session = runtime._open(attrs.evolve(setup, options=setup.options), None)
    assert session is not None and session.pipeline.runner.summarize is summarizer
