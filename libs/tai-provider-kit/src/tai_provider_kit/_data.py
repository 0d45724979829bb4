"""Bundled facts about known models: context window, output limit, prices.

The table (``data/models.json``) is hand-written and shipped in the wheel, read once on
the first lookup — never at start-up, and never from the network: a price list fetched
at run time would make costs depend on the day and start-up on a remote host. Its
``_about`` entry documents the format.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import attrs

from tai_core.models import Prices


@attrs.frozen
class ModelFacts:
    """What the table knows of one model; every field may be unknown."""

    context_tokens: int | None = None
    max_output_tokens: int | None = None
    prices: Prices | None = None
    zero_data_retention: bool = False


UNKNOWN = ModelFacts()


@functools.cache
def _table() -> dict[str, Any]:
    # What pkgutil.get_data does, through the package's own loader (a file or a zip member),
    # without importing pkgutil (+4 ms at every start) or importlib.resources (+9 ms).
    path = Path(__file__).parent / "data" / "models.json"
    return json.loads(__loader__.get_data(str(path)).decode("utf-8"))  # type: ignore[attr-defined]


def _section(name: str) -> dict[str, Any]:
    section = _table().get(name, {})
    return _table().get(section, {}) if isinstance(section, str) else section


def _entry(section: str, model: str) -> dict[str, Any] | None:
    models = _section(section)
    entry = models.get(model)
    return models.get(entry) if isinstance(entry, str) else entry


def known_models(section: str) -> tuple[str, ...]:
    """The models the table names in provider ``section``'s own table (aliases too; none
    for a section that points to another provider's: an Azure model is a deployment's
    name, not OpenAI's)."""
    own = _table().get(section, {})
    return tuple(own) if isinstance(own, dict) else ()


def model_facts(section: str, model: str) -> ModelFacts:
    """The facts of ``model`` of provider ``section`` (``models/`` prefixes ignored; a
    ``NAME/REST`` model not in the section is looked up as ``REST`` in section ``NAME``)."""
    model = model.removeprefix("models/")
    entry = _entry(section, model)
    if entry is None and "/" in model:
        prefix, rest = model.split("/", 1)
        entry = _entry(prefix, rest)
    if entry is None:
        return UNKNOWN
    prices = None
    if "input" in entry and "output" in entry:
        prices = Prices(
            input=entry["input"],
            output=entry["output"],
            cache_read=entry.get("cache_read"),
            cache_write=entry.get("cache_write"),
        )
    return ModelFacts(
        context_tokens=entry.get("context_tokens"),
        max_output_tokens=entry.get("max_output_tokens"),
        prices=prices,
        zero_data_retention=bool(entry.get("zero_data_retention", False)),
    )
