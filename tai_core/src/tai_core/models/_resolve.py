"""From ``-model NAME`` to a :class:`ModelSpec`, in the order the original resolves names.

1. A ``[[generators]]`` entry whose ``name`` or one of whose ``aliases`` is NAME; a name
   with slashes walks ``variants`` (``base/fast``), a child's fields over its parent's;
   ``redirect`` (relative: a sub-variant; ``/x``: from the top) and ``random_redirect``
   of the last element apply, cycles are an error.
2. ``PREFIX:REST`` served by a provider's prefix (``ollama:qwen3``, ``replay:run.txt``).
3. A provider's built-in short name (``flash``, ``pro``).

The type of the result picks the provider, which fills in its defaults. In confidential
mode a model not marked ``zero_data_retention`` is refused here, before a byte is sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tai_core._nearest import aside, did_you_mean, nearest, offer
from tai_core.models._provider import Provider
from tai_core.models._values import ModelSpec


class ModelConfigError(Exception):
    """A model that cannot be resolved or is not allowed; the message says why."""


def _generators(config: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(config.get("generators", []))


def _find_top(generators: list[Mapping[str, Any]], name: str) -> Mapping[str, Any] | None:
    for entry in generators:
        if entry.get("name") == name or name in entry.get("aliases", ()):
            return entry
    return None


def _walk(generators: list[Mapping[str, Any]], path: str, seen: list[str]) -> dict[str, Any] | None:
    """The merged fields of the generator at ``path`` (``top/variant/...``), redirects
    followed (``seen``: the paths walked so far, in order, for the loop's message);
    ``None`` when ``path``'s top is not configured."""
    if path in seen:
        raise ModelConfigError(f"model redirects loop: {' -> '.join([*seen, path])}")
    seen.append(path)
    top, *rest = path.split("/")
    entry = _find_top(generators, top)
    if entry is None:
        return None
    fields = {key: value for key, value in entry.items() if key != "variants"}
    walked = [str(entry.get("name", top))]
    for part in rest:
        variants = entry.get("variants", [])
        entry = next((v for v in variants if v.get("name") == part), None)
        if entry is None:
            known = ", ".join(str(v.get("name")) for v in variants) or "none"
            raise ModelConfigError(
                f"model {path!r}: {'/'.join(walked)} has no variant {part!r} (variants: {known})"
            )
        fields.update({key: value for key, value in entry.items() if key != "variants"})
        walked.append(part)
    target = entry.get("redirect")
    choices = entry.get("random_redirect")
    if choices:
        import random  # only for a generator that redirects at random

        target = random.choice(list(choices))
    if not target:
        fields.pop("redirect", None)
        fields.pop("random_redirect", None)
        return fields
    next_path = target[1:] if target.startswith("/") else f"{'/'.join(walked)}/{target}"
    redirected = _walk(generators, next_path, seen)
    if redirected is None:
        raise ModelConfigError(
            f"model {path!r} redirects to {next_path!r}, which is not configured"
        )
    return redirected


def _prefixed(name: str, providers: Mapping[str, Provider]) -> dict[str, Any] | None:
    """The generator fields of ``PREFIX:MODEL``: a provider's prefix or any of its types
    (``ollama:qwen3``, ``openai:gpt-4o``, ``openrouter:x/y``), case aside."""
    prefix, rest = name.split(":", 1)
    wanted = prefix.lower()
    for provider in providers.values():
        types = [t for t in provider.types if t.lower() == wanted]
        if types or wanted in (p.lower() for p in provider.prefixes):
            return {"type": (types or list(provider.types))[0], "model": rest}
    return None


def _by_type(providers: Mapping[str, Provider]) -> dict[str, Provider]:
    """Each type any of ``providers`` serves (lower case), with the provider."""
    return {t.lower(): p for p in providers.values() for t in p.types}


def type_meant(type_name: str, providers: Mapping[str, Provider]) -> str:
    """``did you mean 'openai'?`` for a type no provider serves: the nearest type, one
    spelling per provider; ``""`` when none is near."""
    by_type = _by_type(providers)
    return did_you_mean(type_name.lower(), by_type, same=by_type.__getitem__)


def _meant(name: str, configured: list[str], providers: Mapping[str, Provider]) -> str:
    """`` (did you mean 'x'?)`` for an unknown model ``name``: the nearest configured or
    built-in name, or for ``PREFIX:MODEL`` the same model with the nearest prefix."""
    owner = {p.lower(): provider for provider in providers.values()
             for p in (*provider.types, *provider.prefixes)}  # fmt: skip
    if ":" in name:
        prefix, rest = name.split(":", 1)
        return aside(did_you_mean(prefix.lower(), owner, lambda near: repr(f"{near}:{rest}"),
                                  same=owner.__getitem__))  # fmt: skip
    if name.lower() in owner:  # -model openai: the provider, without its model
        return f" (a provider: give the model after it, {name}:MODEL)"
    short = [n for provider in providers.values() for n in provider.short_names]
    return aside(did_you_mean(name, [*configured, *short])) or _qualified(name, providers)


def _qualified(name: str, providers: Mapping[str, Provider]) -> str:
    """`` (did you mean 'openai:gpt-4o'?)`` for a bare model name that an installed
    provider knows (its ``known_models``), with that provider's type before it: the name
    itself when one knows it, else the nearest names."""
    owners: dict[str, list[str]] = {}
    for provider in providers.values():
        for model in getattr(provider, "known_models", ()):
            owners.setdefault(str(model).lower(), []).append(f"{provider.types[0]}:{model}")
    near = [name.lower()] if name.lower() in owners else nearest(name.lower(), owners, n=2)
    qualified = [choice for model in near for choice in owners[model]][:3]
    return aside(offer(qualified))


def resolve_model(
    name: str,
    config: Mapping[str, Any],
    providers: Mapping[str, Provider],
    environ: Mapping[str, str],
    *,
    confidential: bool = False,
) -> ModelSpec:
    """Resolve ``name`` against the configuration and the registered ``providers``."""
    by_type = _by_type(providers)
    fields = _walk(_generators(config), name, [])
    if fields is None and ":" in name:
        fields = _prefixed(name, providers)
    if fields is None:
        short = {n: f for p in providers.values() for n, f in p.short_names.items()}
        if name in short:
            fields = dict(short[name])
    if fields is None:
        configured = sorted(str(g.get("name")) for g in _generators(config))
        built_in = sorted({n for provider in providers.values() for n in provider.short_names})
        raise ModelConfigError(
            f"unknown model {name!r}{_meant(name, configured, providers)}: not a configured "
            "generator "
            f"({', '.join(configured) or 'none configured'}), not PREFIX:MODEL of an installed "
            f"provider, not a built-in name ({', '.join(built_in) or 'none installed'}); see "
            "`tai plugins` for installed providers"
        )
    type_name = str(fields.get("type") or "").lower()
    provider = by_type.get(type_name)
    if provider is None:
        canonical = sorted({p.types[0].lower() for p in by_type.values()})
        known = ", ".join(canonical) or "none: no provider is installed"
        if not type_name:
            raise ModelConfigError(
                f"model {name!r} has no type: set type in its generator to the provider "
                f"that serves it (types: {known})"
            )
        meant = type_meant(type_name, providers)
        raise ModelConfigError(
            f"model {name!r} has type {fields.get('type')!r}, which no installed provider "
            f"serves ({meant + ' ' if meant else ''}types: {known})"
        )
    spec = provider.spec(name, fields, config, environ)
    if confidential and not spec.zero_data_retention:
        raise ModelConfigError(
            f"confidential mode: model {name!r} ({spec.provider} {spec.model}) is not marked "
            "zero_data_retention = true; nothing was sent"
        )
    return spec
