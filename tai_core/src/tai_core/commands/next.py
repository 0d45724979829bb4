"""``tai next``: answer a task from the assembled context, as text; no file changes.

The context is the one the default command would send in this directory
(:mod:`._assemble`): inside a Go module the staged Go outline, elsewhere the text files,
then the files named with ``-file``, secrets withheld alike. The system prompt names only
what was sent — a prompt that speaks of "the files below" when none follow invites an
answer about files the model never saw. The answer is the reply itself (streamed to
stdout), optionally recorded as ``response`` blocks in the session tree; ``change``, the
fetch kinds and the other acting kinds are announced as disabled, so nothing in the
working tree changes and one round answers (more only when malformed blocks need
correcting).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from tai_core.commands._options import (
    flag_settings,
    generation_options,
    parse_flags,
    task_of,
)

if TYPE_CHECKING:
    from tai_core.context import ContextPart

THEORY_OF_NEXT = """\
Answer directly and completely in plain text (Markdown is fine). You cannot change files \
or run anything in this mode; when something would need that, say what should be done."""

#: How the prompt names what each context provider sent.
SENT_BY = {
    "go": "the outline of the Go project below (the documentation of its packages — every "
    "declaration with its doc comment — the design notes the code states, the names of its "
    "tests and files)",
    "py": "the outline of the Python project below (the signatures and docstrings of its "
    "modules, classes and functions, the design notes the code states, the names of its "
    "tests and files)",
    "any": "the text files of the working directory below",
}
SENT_FILES = "the files named for this task below"
OUTLINE_NOTE = """\
The outline is documentation, not the implementation of the focus code: when the \
answer depends on code it does not show, say which declarations would need to be read."""
#: Tokens kept for the base text growing when it names what the context sent.
BASE_TOKENS = 128
NO_CONTEXT = """\
You answer the user's task from what it says and what you know: no files or documentation \
come with it."""


def _shows(parts: Sequence[ContextPart]) -> bool:
    """Whether ``parts`` show anything beyond hints and withheld names."""
    from tai_core.context import TIER_HINTS

    return any(part.tier < TIER_HINTS and not part.withheld for part in parts)


def next_base(
    provider: str | None, parts: Sequence[ContextPart], files: Sequence[ContextPart]
) -> str:
    """The system prompt's base text, naming what the context holds: what ``provider``
    sent (``parts``) and the ``-file`` files (``files``)."""
    sources = []
    if provider is not None and _shows(parts):
        sources.append(SENT_BY.get(provider, f"the project context below (from {provider})"))
    if _shows(files):
        sources.append(SENT_FILES)
    if not sources:
        return (
            f"{NO_CONTEXT} {THEORY_OF_NEXT} When the answer depends on files you have not "
            "seen, say so."
        )
    base = (
        f"You answer the user's task from {' and '.join(sources)}, and the task itself. "
        f"{THEORY_OF_NEXT} If the context lacks what the answer needs, say what is missing."
    )
    outlines = (SENT_BY["go"], SENT_BY["py"])
    return f"{base}\n\n{OUTLINE_NOTE}" if any(o in sources for o in outlines) else base


@click.command("next")
@generation_options
@click.pass_obj
def next_command(app: Any, **params: Any) -> None:
    """Answer a task from the context, as text (changes no files)."""
    from tai_core.commands._assemble import (
        Selection,
        assembled,
        context_request,
        provider_for,
        standing_texts,
        within_window,
        writable,
    )
    from tai_core.commands._files import file_parts
    from tai_core.commands._session import resolve, run_session
    from tai_core.context import ContextError, SelectionError, hook_check
    from tai_core.context._compose import primary_name
    from tai_core.context._prompt import Prompt, build_prompt
    from tai_core.models import estimate_tokens, window_of

    flags = parse_flags(params)
    task = task_of(flags)
    if not task.strip():
        raise click.UsageError('nothing to answer: give the task as chat "…" (or -stdin)')
    cwd, config = Path.cwd(), {**app.config.values, **flag_settings(flags)}
    secret, is_writable = hook_check(app.host.pm.hook, config), writable(app)
    files = file_parts(flags.files, cwd, is_writable, secret)
    provider = provider_for(app, cwd)
    standing = standing_texts(app, "next", cwd, config)

    def build(parts: Sequence[ContextPart]) -> Prompt:
        if not _shows(parts):  # no hint about files above when none is shown
            parts = tuple(part for part in parts if part.withheld)
        return build_prompt(
            base=next_base(provider and primary_name(provider), parts, files),
            kinds=app.host.registry.block_kinds.values(), command="next",
            parts=assembled(cwd, parts, files), task=task, config=config, standing=standing,
        )  # fmt: skip

    prompt = build(())
    model = resolve(app, flags.model, confidential=flags.confidential)
    if provider is not None:
        request = context_request(
            cwd, "next", config, Selection(), is_writable=is_writable, secret=secret
        )
        bare = estimate_tokens(prompt.system) + estimate_tokens(prompt.user) + BASE_TOKENS
        try:
            parts, prompt = within_window(provider, request, build, window_of(model[1]), bare)
        except ContextError as error:
            click.echo(f"tai: error: context: {error}", err=True)
            sys.exit(2 if isinstance(error, SelectionError) else 1)
        for part in parts:
            if part.notice:
                click.echo(f"tai: note: {part.notice}", err=True)
    code = run_session(
        app, flags, command="next", system=prompt.system, user=prompt.user,
        require_completion=False, model=model,
    )  # fmt: skip
    sys.exit(code)
