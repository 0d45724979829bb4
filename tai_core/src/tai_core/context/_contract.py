"""What a context provider receives and returns.

A context provider turns the request's focus and context patterns into *parts*: rendered
pieces of the first request. Each part carries a tier and a key, and the prompt builder
orders parts by ``(tier, key)`` only — never by discovery order — so the same inputs give
the same bytes, and a change to a focus file (the last tier) moves nothing before it
(prefix stability: everything before the edit stays in the provider's cache).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import attrs

from tai_core.context._secrets import SecretCheck, names_only

#: Tiers, in prompt order. Files of modules outside the project come first, the project's
#: context next, its focus last; explicit ``-file`` files and hints close the context.
TIER_EXTERNAL = 0
TIER_CONTEXT = 1
TIER_FOCUS = 2
TIER_FILES = 3
TIER_HINTS = 4


def _always_writable(path: Path) -> bool:
    del path
    return True


@attrs.frozen
class ContextRequest:
    """The inputs of context collection for one run (or one goal loop)."""

    cwd: Path
    command: str
    #: Focus patterns (``-pkg``/``-load``; the provider's default when empty).
    focus: tuple[str, ...] = ()
    #: Context patterns (``-ctx``/``-dep``): packages guaranteed to be shown as code.
    context: tuple[str, ...] = ()
    #: Packages whose documentation is added (``-doc``).
    docs: tuple[str, ...] = ()
    #: Regular expressions a file must match to be included (``-match``).
    match: tuple[str, ...] = ()
    #: Exclusion patterns (``-ignore`` and the ``ignore`` configuration key).
    ignore: tuple[str, ...] = ()
    #: Full source of the focus instead of its documentation (``-all-src``).
    all_src: bool = False
    config: Mapping[str, Any] = attrs.field(factory=dict)
    #: Whether a path may be written in this run (the sandbox's answer); parts of files
    #: that may not are marked read-only.
    is_writable: Callable[[Path], bool] = _always_writable
    #: Why a file is withheld as a secret (``None``: it may be sent): called with the
    #: file's shown path and its bytes (``None`` to judge the name alone). The commands
    #: pass one that asks the ``tai_secret_file`` hook; the default judges names only
    #: (:mod:`tai_core.context._secrets`), so a provider called directly still withholds.
    secret: SecretCheck = attrs.field(
        default=attrs.Factory(lambda self: names_only(self.config), takes_self=True)
    )
    #: Tokens the parts may hold together (estimated with
    #: :func:`tai_core.models.estimate_tokens`), ``None`` for no limit: what the model's
    #: window leaves after the rest of the first request. A provider lowers what it shows
    #: to stay within it, the same way for the same inputs, and raises
    #: :class:`ContextError` when even its least does not fit.
    max_tokens: int | None = None

    def check_matched(self, files: Iterable[str], keeps: Callable[[str], bool]) -> None:
        """:class:`SelectionError` when ``-match`` is given and ``keeps`` none of the
        ``files`` the selection reaches (a pattern naming nothing is the command line's
        mistake, as an unknown package is)."""
        if self.match and not any(keeps(file) for file in files):
            shown = ", ".join(repr(expression) for expression in self.match)
            raise SelectionError(f"-match {shown} matches no file of the selection")

    def match_expressions(self) -> list[re.Pattern[str]]:
        """The ``-match`` expressions compiled; :class:`SelectionError` naming the first
        that is not a regular expression (every provider says it alike)."""
        try:
            return [re.compile(expression) for expression in self.match]
        except re.error as error:
            raise SelectionError(f"-match {error.pattern!r}: {error}") from None


def matches(path: str, expressions: Sequence[re.Pattern[str]]) -> bool:
    """Whether ``-match`` (``expressions``, from :meth:`ContextRequest.match_expressions`)
    keeps the file ``path``: one of them finds something in it; no expressions keep every
    file."""
    return not expressions or any(expression.search(path) for expression in expressions)


@attrs.frozen
class ContextPart:
    """One rendered piece of the context.

    ``tier`` and ``key`` decide its place (see the module docstring); ``path`` names the
    file or package it shows, and ``read_only`` marks one the run may not change (the
    prompt names those files so the model never targets them). A part with ``withheld``
    (the reason) stands for a secret file: its ``text`` is not shown; the prompt builder
    names every such ``path`` in one closing list instead (see :func:`withheld`).
    """

    tier: int
    key: str
    text: str
    path: str = ""
    read_only: bool = False
    withheld: str = ""
    #: One line for the user about this part (a partial load, a reduction to fit the
    #: model's window); the commands print it on stderr, the model never sees it.
    notice: str = ""


#: How tai names the error log of a failed change in the working directory
#: (``.error-log.<YYYYMMDD-HHMMSS>[-N].xml``, written by ``tai_changes``).
ERROR_LOG_PREFIX = ".error-log."
ERROR_LOG_SUFFIX = ".xml"


def is_error_log(name: str) -> bool:
    """Whether the file ``name`` is one of tai's error logs: tai's record of a failure,
    not the project's, which no context shows a model (it would read its own mistakes
    back as a file of the project, at every later run)."""
    return name.startswith(ERROR_LOG_PREFIX) and name.endswith(ERROR_LOG_SUFFIX)


def withheld(path: str, reason: str) -> ContextPart:
    """The part that names the secret file ``path`` as withheld for ``reason``."""
    return ContextPart(TIER_HINTS, f"withheld {path}", "", path=path, withheld=reason)


class ContextProvider(Protocol):
    """A context provider as registered through ``tai_register_context_providers``.

    A *primary* provider builds the staged context of the directories it serves (one per
    run: ``go`` inside a Go module, else ``any``, else the first other that applies). A
    provider with a class attribute ``additive = True`` instead adds its parts to the
    primary's wherever it applies: its keys are prefixed with its name, its parts come out
    of the same token budget, files it names are withheld by the same secret rules, and
    its failure costs only its parts (``tai_core.context._compose``).
    """

    #: Unique among context providers; names its parts' keys when it is additive.
    name: str
    #: One line for ``tai plugins``.
    description: str

    def applies(self, cwd: Path) -> bool:
        """True when this provider serves a run in ``cwd`` (the Go provider: inside a Go
        module)."""
        ...

    def collect(self, request: ContextRequest) -> tuple[ContextPart, ...]:
        """The parts for ``request``; raise :class:`ContextError` when the inputs cannot
        be served (a pattern that matches nothing, a broken module)."""
        ...


class ContextError(Exception):
    """Context that cannot be collected; the message names the pattern or file."""


class SelectionError(ContextError):
    """A selection the context cannot use: a pattern (``-pkg``, ``-ctx``, ``-match``, the
    configuration's ``focus``) that names nothing or is not valid. The command line's or
    the configuration's mistake, so a command ends with exit status 2, as for a usage
    error, and never retries."""


class ContextTooLarge(ContextError):
    """Context that cannot fit ``ContextRequest.max_tokens`` even at its least: a caller
    that kept room for something else may try again with more."""
