"""The assembled context: the provider that serves the directory, its request, ``-file``.

The default command (each of its goal loops) and ``next`` send the same context for the
same directory — the Go outline inside a Go module, the text files elsewhere, the files
named with ``-file`` after them, secrets withheld the same way — so an answer of ``next``
is about what a run would see. One place builds it, so the two cannot drift apart. A file
the provider shows and ``-file`` names too is sent once, as the named file: twice would
only cost tokens.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from tai_core.app import AppContext
from tai_core.context import (
    ContextPart,
    ContextProvider,
    ContextRequest,
    ContextTooLarge,
    SecretCheck,
)
from tai_core.context._prompt import Prompt, Standing
from tai_core.models import Window, estimate_tokens


@attrs.frozen
class Selection:
    """What the command line selects beyond the configuration (``-pkg``, ``-ctx``, …)."""

    focus: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    docs: tuple[str, ...] = ()
    match: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    all_src: bool = False
    #: The primary context provider the user named (``-py``), whether or not it applies.
    provider: str | None = None


#: What the default command says when no context provider serves the directory (a set
#: of plugins without one: ``tai-core tai-kind-shell tai-provider-openai``).
NO_PROVIDER = (
    "no context provider serves this directory: the model gets the task and the -file files "
    "alone (tai-context-any sends a directory's text files, tai-context-go a Go module's "
    "outline, tai-context-py a Python project's; see `tai plugins`)"
)


class TaskAlone:
    """The context of a directory no provider serves: nothing beyond the task and the
    ``-file`` files, said once (:data:`NO_PROVIDER`) rather than refused, since a set of
    plugins without a context provider is still a working tool."""

    name = "none"
    description = "no context provider: the task and the -file files alone"

    def applies(self, cwd: Path) -> bool:
        """Always: it stands in when nothing else applies."""
        del cwd
        return True

    def collect(self, request: ContextRequest) -> tuple[ContextPart, ...]:
        """No parts."""
        del request
        return ()


def provider_for(app: AppContext, cwd: Path, prefer: str | None = None) -> ContextProvider | None:
    """The context provider of ``cwd``: the primary that serves it (``go``, else ``py``,
    else ``any``, else the first other one that applies; or the one ``prefer`` names) with
    the additive ones that apply (``tai_core.context._compose``); ``None`` when no primary
    applies. Raises :class:`ContextError` when ``prefer`` names no installed provider."""
    from tai_core.context._compose import choose

    def warn(message: str) -> None:
        app.host.stderr.write(f"tai: warning: {message}\n")

    return choose(app.host.registry.context_providers.values(), cwd, warn, prefer)


def writable(app: AppContext) -> Callable[[Path], bool]:
    """Whether the run may write a path, as the ``tai_path_policy`` hook answers."""
    hook = app.host.pm.hook

    def is_writable(path: Path) -> bool:
        from tai_core.plugins._failures import PluginHookError

        try:
            answer = hook.tai_path_policy(path=str(path), operation="write")
        except PluginHookError:
            return False  # a policy that cannot answer: the file is shown read-only
        return True if answer is None else bool(answer[0])

    return is_writable


def context_request(
    cwd: Path,
    command: str,
    config: Mapping[str, Any],
    selection: Selection,
    *,
    is_writable: Callable[[Path], bool],
    secret: SecretCheck,
) -> ContextRequest:
    """The request of ``command`` in ``cwd``: the selection's patterns, and the
    configuration's (``focus``, ``match``, ``ignore``, the ``go`` table's patterns)."""
    go = dict(config.get("go") or {})
    return ContextRequest(
        cwd=cwd, command=command,
        focus=selection.focus or (*config.get("focus", []), *go.get("load_patterns", [])),
        context=(*selection.context, *go.get("context_patterns", [])),
        docs=(*selection.docs, *go.get("doc_patterns", [])),
        match=(*selection.match, *config.get("match", [])),
        ignore=(*selection.ignore, *config.get("ignore", [])),
        all_src=selection.all_src, config=config, is_writable=is_writable, secret=secret,
    )  # fmt: skip


def assembled(
    cwd: Path, parts: Sequence[ContextPart], files: Sequence[ContextPart]
) -> list[ContextPart]:
    """The provider's ``parts`` and then the ``-file`` ``files``; a file shown by both is
    shown once, as the file the user named (whole, in the last tier)."""
    named = {(cwd / part.path).resolve() for part in files if part.path and not part.withheld}
    kept = [
        part
        for part in parts
        if part.withheld or not part.path or (cwd / part.path).resolve() not in named
    ]
    return [*kept, *files]


def within_window(
    provider: ContextProvider,
    request: ContextRequest,
    build: Callable[[Sequence[ContextPart]], Prompt],
    window: Window,
    bare_tokens: int,
    *,
    conversation: int = 0,
) -> tuple[tuple[ContextPart, ...], Prompt]:
    """The provider's parts and the first request built from them (``build``), within the
    model's ``window``: the provider may use what the window leaves after
    ``bare_tokens`` (the request without the provider's parts, with whatever fixed
    allowance the caller keeps for pieces that change from request to request, so the
    same inputs get the same limit); what the parts add besides their text (the
    read-only list) is taken off and the context collected once more. ``conversation``
    tokens are kept free for the rounds that follow (their replies and block results)
    when the context can do with less, and given to it when it cannot. Raises
    :class:`ContextError` when it does not fit, before anything is sent."""
    if conversation:
        try:
            return within_window(provider, request, build, window, bare_tokens + conversation)
        except ContextTooLarge:
            pass  # the context needs the conversation's room: a smaller share is better
    room = window.request_tokens - bare_tokens
    if room <= 0:
        raise ContextTooLarge(
            f"the task, the -file files and the instructions alone need about {bare_tokens} "
            f"tokens, too many for {window.describe()}"
        )
    needed = 0
    for _ in range(2):
        parts = provider.collect(attrs.evolve(request, max_tokens=room))
        prompt = build(parts)
        needed = estimate_tokens(prompt.system) + estimate_tokens(prompt.user)
        if needed <= window.request_tokens:
            return parts, prompt
        room -= needed - window.request_tokens
    raise ContextTooLarge(
        f"the first request would hold about {needed} tokens, more than "
        f"{window.describe()}; nothing was sent"
    )


def standing_texts(
    app: AppContext, command: str, cwd: Path, config: Mapping[str, Any]
) -> tuple[Standing, ...]:
    """The plugins' standing texts for the system prompt (``tai_system_prompt``), in
    plugin-name order, each with the block kinds its plugin registers (the prompt leaves
    a text out with its kinds, :func:`~tai_core.context._prompt.build_prompt`). A plugin
    that fails is left out with one warning; so is a text that holds a secret (asked of
    ``tai_secret_file`` like any file: the text goes to the model as a file would)."""
    import click

    from tai_core.context import hook_check
    from tai_core.plugins._observe import gathered

    def warn(line: str) -> None:
        click.echo(f"tai: warning: {line}", err=True)

    answers = gathered(
        app.host.pm.hook.tai_system_prompt, warn, command=command, cwd=str(cwd), config=config
    )
    secret, texts = hook_check(app.host.pm.hook, config), []
    for plugin, answer in sorted(answers, key=lambda named: named[0]):
        text = str(answer).strip()
        reason = text and secret(f"{plugin}.md", text.encode())
        if reason:
            warn(f"plugin {plugin!r}: its standing text is left out of the prompt: {reason}")
        elif text:
            record = app.host.record(plugin)
            kinds = record.registers.get("block_kinds", ()) if record is not None else ()
            texts.append((text, frozenset(kinds)))
    return tuple(texts)
