"""Write (or, with --check, verify) docs/plugin-api.md: the public contracts of tai_core.

Everything a plugin implements or receives, and what an embedder drives, is exported by
one public module per plugin kind; this reference lists each exported name with its
signature and its docstring, generated from the code so that the two cannot drift. The
test suite runs the --check form and fails when an exported name (or a public method of an
exported class) has no docstring.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

from _generated import write_or_check

DOC = Path(__file__).resolve().parent.parent / "docs" / "plugin-api.md"

#: The public modules, each with what it is for.
MODULES = {
    "tai_core": "what every plugin starts from: the hook marker, the block-kind contract, "
    "the provider and context-provider contracts",
    "tai_core.blocks": "block kinds: the contract, parameters, results, the parser",
    "tai_core.models": "providers: the request, the stream events, usage, prices, errors",
    "tai_core.context": "context providers: requests, parts, tiers, secrets",
    "tai_core.plugins": "the plugin host, registration, failure rules",
    "tai_core.runtime": "the runtime: commands in, events out (embedders, front-ends)",
    "tai_core.testing": "the testing kit for a plugin's own tests",
    "tai_core.testing.plugin": "the kit's pytest fixtures (installing tai-core registers "
    "them through the pytest11 entry point)",
}

INTRO = """\
# tai's plugin API

Generated from the code by `scripts/api_docs.py`; do not edit by hand. The hooks
themselves are in [plugin-hooks.md](plugin-hooks.md); how to write each kind of plugin is
in [CONTRIBUTING.md](../CONTRIBUTING.md).

Each public module below exports what one kind of plugin (or an embedder) needs; nothing
else of `tai_core` is a contract.
"""


def undocumented() -> list[str]:
    """The exported names (and public methods of exported classes) without a docstring."""
    missing = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            value = getattr(module, name)
            if _documentable(value) and not _own_doc(value):
                missing.append(f"{module_name}.{name}")
            if inspect.isclass(value):
                missing += [f"{module_name}.{name}.{method}" for method, member in _methods(value)
                            if not inspect.getdoc(member)]  # fmt: skip
    return missing


def _documentable(value: object) -> bool:
    return inspect.isclass(value) or inspect.isfunction(value)


def _own_doc(value: object) -> str:
    doc = getattr(value, "__doc__", None) or ""
    inherited = inspect.isclass(value) and any(
        doc == (base.__doc__ or "") for base in value.__mro__[1:]
    )
    return "" if inherited else doc


def _methods(cls: type) -> list[tuple[str, object]]:
    return [
        (name, member)
        for name, member in vars(cls).items()
        if not name.startswith("_") and (inspect.isfunction(member) or isinstance(member, property))
    ]


def _signature(value: object) -> str:
    if getattr(value, "_is_protocol", False):
        return ""  # a structural contract: nothing to construct
    try:
        text = str(inspect.signature(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ""
    return re.sub(r" at 0x[0-9a-f]+", "", text)


def _entry(module_name: str, name: str, value: object) -> list[str]:
    if inspect.isclass(value):
        lines = [f"### class `{name}{_signature(value)}`", "", inspect.cleandoc(_own_doc(value))]
        for method, member in _methods(value):
            shown = f"{method}{_signature(member)}" if inspect.isfunction(member) else method
            first = (inspect.getdoc(member) or "").split("\n\n")[0].replace("\n", " ")
            lines += ["", f"- `{shown}` — {first}"]
        return [*lines, ""]
    if inspect.isfunction(value):
        doc = inspect.getdoc(value) or ""
        return [f"### `{name}{_signature(value)}`", "", doc, ""]
    fixture = getattr(value, "_get_wrapped_function", None)  # a pytest fixture
    if fixture is not None:
        doc = inspect.getdoc(fixture()) or ""
        return [f"### fixture `{name}`", "", doc, ""]
    if isinstance(value, (set, frozenset)):  # in an order that does not depend on hashing
        shown = f"{type(value).__name__}({{{', '.join(sorted(map(repr, value)))}}})"
    else:
        shown = re.sub(r" at 0x[0-9a-f]+", "", repr(value))
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return [f"### `{name}` = `{shown}`", ""]


def _home(module_name: str, name: str) -> str | None:
    """The more specific public module that exports ``name`` too, if any."""
    for other in MODULES:
        inside = other != module_name and other.startswith(f"{module_name}.")
        if inside and name in importlib.import_module(other).__all__:
            return other
    return None


def render() -> str:
    lines = [INTRO]
    for module_name, about in MODULES.items():
        module = importlib.import_module(module_name)
        lines += [f"## `{module_name}` — {about}", ""]
        for name in sorted(module.__all__):
            home = _home(module_name, name)
            if home is not None:
                lines += [f"- `{name}`: see `{home}`", ""]
                continue
            lines += _entry(module_name, name, getattr(module, name))
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    raise SystemExit(write_or_check(DOC, render, "api_docs.py", __doc__ or ""))
