"""``tai ping``: the model answers, and writes blocks the way tai reads them.

One call does both checks: reaching the model, and the block-format exam of
:mod:`tai_core.commands._ping_exam` under the kind-agnostic format prompt. The call goes
through ``generate``, so transient errors are retried before ping reports a failure. The
verdict is one line: ``ping ok: MODEL answered in X.X s`` on stdout (exit 0), or what was
expected and what was found, or the provider's error, on stderr (exit 1).
"""

from __future__ import annotations

import sys
from typing import Any

import click


@click.command("ping")
@click.option("-model", "--model", "model", metavar="NAME", help="The model to check.")
@click.option(
    "-seed", "--seed", "seed", type=int, default=None, metavar="N",
    help="Seed of the exam's made-up blocks (the same seed asks the same exam).",
)  # fmt: skip
@click.pass_obj
def ping_command(app: Any, model: str | None, seed: int | None) -> None:
    """Check that a model answers and writes blocks correctly."""
    import asyncio
    import random
    import time

    from tai_core.blocks import FORMAT_SYSTEM_PROMPT
    from tai_core.commands._ping_exam import exam_prompt, grade, make_exam
    from tai_core.commands._session import resolve
    from tai_core.models import ProviderError, ask

    provider, spec = resolve(app, model, confidential=False)
    exam = make_exam(random.Random(seed))
    started = time.perf_counter()
    try:
        reply = asyncio.run(ask(provider, spec, FORMAT_SYSTEM_PROMPT, exam_prompt(exam)))
    except ProviderError as error:
        click.echo(f"tai: error: ping failed: {spec.name}: {error}", err=True)
        sys.exit(1)
    seconds = time.perf_counter() - started
    problem = grade(exam, reply)
    if problem is not None:
        from tai_core._printable import shown_on

        problem = shown_on(sys.stderr)(problem)  # it may quote the model's answer
        click.echo(f"tai: error: ping failed: {spec.name}: {problem}", err=True)
        sys.exit(1)
    click.echo(f"ping ok: {spec.name} answered in {seconds:.1f} s")
