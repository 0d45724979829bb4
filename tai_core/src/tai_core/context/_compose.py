"""One primary context provider, and the additive ones that add parts to whatever it sends.

A directory is served by one *primary* provider, which builds the staged context (``go``
inside a Go module, ``py`` in a Python project, ``any`` elsewhere, another plugin's where
none applies, or the one the user names: ``-py``): two
outlines of the same code would only cost tokens. An *additive* provider
(``additive = True``: a CHANGELOG, an issue tracker's open ticket, a design document) adds
its parts to the primary's, wherever it applies. :class:`Composed` is itself a
:class:`ContextProvider`, so the callers — the window rule, the goal loops, ``next`` — do
not know there is more than one.

Invariants:

* **Prefix stability.** Parts are placed by ``(tier, key)`` only; an additive provider's
  keys are prefixed with its name, so its parts keep their place between runs whatever the
  primary shows, and never tie with the primary's keys.
* **One budget.** The additive parts are collected first, within the whole room; the
  primary gets what they leave (its own rule lowers what it shows to fit).
* **Secrets withheld whoever collects.** An additive part that names a file is judged by
  the request's secret check like every file the core sends, so a third-party provider that
  forgets to ask still withholds a credential file.
* **A failing additive provider costs only its parts.** Anything it raises but
  :class:`ContextTooLarge` is reported in one line naming it (``warn``), and the run goes
  on with the primary's context.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import attrs

from tai_core.context._contract import (
    ContextError,
    ContextPart,
    ContextProvider,
    ContextRequest,
    ContextTooLarge,
    withheld,
)
from tai_core.context._secrets import judged

#: The primary providers tried first, in this order, before any other that applies.
PREFERRED: tuple[str, ...] = ("go", "py", "any")


def is_additive(provider: object) -> bool:
    """True for a provider that adds parts rather than building the context."""
    return getattr(provider, "additive", False) is True


def choose(
    providers: Iterable[ContextProvider],
    cwd: Path,
    warn: Callable[[str], None],
    prefer: str | None = None,
) -> ContextProvider | None:
    """The context provider of ``cwd``: the primary that serves it (``go``, else ``py``,
    else ``any``, else the first other that applies; ``prefer`` names one to use whether
    or not it applies) with every additive one that applies, composed; ``None`` when no
    primary applies. Raises :class:`ContextError` when ``prefer`` names no primary."""
    by_name = {provider.name: provider for provider in providers}
    primaries = [p for p in by_name.values() if not is_additive(p)]
    ranked = sorted(primaries, key=lambda p: (p.name not in PREFERRED, _rank(p.name)))
    if prefer is not None:
        primary = next((p for p in primaries if p.name == prefer), None)
        if primary is None:
            names = ", ".join(sorted(p.name for p in primaries)) or "none"
            raise ContextError(
                f"no context provider named {prefer!r} is installed (installed: {names}; "
                "see `tai plugins`)"
            )
    else:
        primary = next((p for p in ranked if p.applies(cwd)), None)
    if primary is None:
        return None
    additives = sorted((p for p in by_name.values() if is_additive(p)), key=lambda p: p.name)
    applying = tuple(p for p in additives if _applies(p, cwd, warn))
    return Composed(primary, applying, warn) if applying else primary


def primary_name(provider: ContextProvider) -> str:
    """The name of the provider that builds ``provider``'s context (itself, or the primary
    of a composed one): what decides the command a run is."""
    return provider.primary.name if isinstance(provider, Composed) else provider.name


def _rank(name: str) -> int:
    return PREFERRED.index(name) if name in PREFERRED else len(PREFERRED)


def _applies(provider: ContextProvider, cwd: Path, warn: Callable[[str], None]) -> bool:
    try:
        return bool(provider.applies(cwd))
    except Exception as error:  # noqa: BLE001 - a plugin's failure costs only its parts
        warn(f"context provider {provider.name!r} failed: {type(error).__name__}: {error}")
        return False


@attrs.frozen
class Composed:
    """The primary provider's parts with the additive providers' parts."""

    primary: ContextProvider
    additives: tuple[ContextProvider, ...]
    warn: Callable[[str], None] = attrs.field(repr=False)

    @property
    def name(self) -> str:
        return "+".join((self.primary.name, *(p.name for p in self.additives)))

    @property
    def description(self) -> str:
        return self.primary.description

    def applies(self, cwd: Path) -> bool:
        return self.primary.applies(cwd)

    def collect(self, request: ContextRequest) -> tuple[ContextPart, ...]:
        added = [part for provider in self.additives for part in self._added(provider, request)]
        room = request.max_tokens
        if room is not None:
            from tai_core.models import estimate_tokens

            room -= sum(estimate_tokens(part.text) for part in added)
            if room <= 0:
                names = ", ".join(p.name for p in self.additives)
                raise ContextTooLarge(f"the parts of {names} alone fill the model's window")
        return (*self.primary.collect(attrs.evolve(request, max_tokens=room)), *added)

    def _added(self, provider: ContextProvider, request: ContextRequest) -> Sequence[ContextPart]:
        try:
            parts = tuple(provider.collect(request))
        except ContextTooLarge:
            raise
        except Exception as error:  # noqa: BLE001 - a plugin's failure costs only its parts
            self.warn(
                f"context provider {provider.name!r} failed: {type(error).__name__}: {error}; "
                "its parts are left out"
            )
            return ()
        return [_checked(provider.name, part, request) for part in parts]


def _checked(owner: str, part: ContextPart, request: ContextRequest) -> ContextPart:
    """``part`` with its key prefixed by its provider's name, or the withheld part of its
    file when the request's secret check withholds it."""
    if part.path and not part.withheld:
        real = str((request.cwd / part.path).resolve())
        reason = judged(request.secret, part.path, real, part.text.encode("utf-8"))
        if reason is not None:
            return withheld(part.path, reason)
    return attrs.evolve(part, key=f"{owner}:{part.key}")
