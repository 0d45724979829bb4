"""Checking what a plugin registers against the contract it must fulfil, member by member.

The contracts themselves are structural protocols beside the code that uses them —
:class:`tai_core.models.Provider`, :class:`tai_core.context.ContextProvider`,
:class:`tai_core.blocks.BlockKind` — so a plugin's objects need not inherit from anything.
A protocol cannot check itself at run time, though, and a provider without ``spec`` would
otherwise be listed by ``tai plugins`` and fail with a traceback when first used. So each
contract is also written here as a table of members with what each must be, and the
registry refuses an object that lacks one: the plugin's load error names every member
missing or wrong, and the plugin joins with nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

#: A contract: member name -> (what it must be, in words; the check of its value).
Contract = Mapping[str, tuple[str, Callable[[Any], bool]]]


def _name(value: object) -> bool:
    return isinstance(value, str) and bool(value)


def _text(value: object) -> bool:
    return isinstance(value, str)


def _flag(value: object) -> bool:
    return isinstance(value, bool)


def _names(value: object) -> bool:
    return isinstance(value, tuple) and all(_name(item) for item in value)


def _short_names(value: object) -> bool:
    return isinstance(value, Mapping) and all(
        _name(name) and isinstance(fields, Mapping) for name, fields in value.items()
    )


#: :class:`tai_core.models.Provider`.
PROVIDER: Contract = {
    "name": ("a non-empty string", _name),
    "description": ("a string (one line for tai plugins)", _text),
    "types": ("a tuple of non-empty strings (the generator types it serves)", _names),
    "prefixes": ("a tuple of non-empty strings (the -model PREFIX:NAME it serves)", _names),
    "short_names": ("a mapping of model names to generator fields", _short_names),
    "spec": ("a method spec(name, fields, config, environ) returning a ModelSpec", callable),
    "stream": ("a method stream(spec, request) yielding stream events", callable),
}


#: Session command names the front-ends keep for themselves.
RESERVED_COMMANDS = frozenset({"help", "reload", "compact", "agent"})


def _command_name(value: object) -> bool:
    text = str(value)
    plain = not any(c.isspace() for c in text) and not text.startswith("/")
    return _name(value) and plain and text not in RESERVED_COMMANDS


#: :class:`tai_core.plugins.SessionCommand`.
SESSION_COMMAND: Contract = {
    "name": (
        "a word without '/', not help, reload, compact or agent (users type /NAME)",
        _command_name,
    ),
    "description": ("a string (one line for /help)", _text),
    "run": ("a function run(session, args) returning the text to show", callable),
}


def _words(value: object) -> bool:
    return isinstance(value, tuple) and all(isinstance(word, str) for word in value)


def _agent_name(value: object) -> bool:
    return _command_name(value) or value == "compact"  # the instructions of compaction


#: :class:`tai_core.plugins.AgentCommand`.
AGENT_COMMAND: Contract = {
    "name": ("a word without '/', not help, reload or agent (users type /NAME)", _agent_name),
    "description": SESSION_COMMAND["description"],
    "render": ("a function render(data) returning the system prompt's text", callable),
    "tools": ("a tuple of block-kind names", _words),
    "model": ("None or a model name", lambda value: value is None or _name(value)),
    "argument_hint": ("a string", _text),
    "user_invocable": ("True or False", _flag),
    "model_invocable": ("True or False", _flag),
}

#: :class:`tai_core.context.ContextProvider`.
CONTEXT_PROVIDER: Contract = {
    "name": ("a non-empty string", _name),
    "description": ("a string (one line for tai plugins)", _text),
    "applies": ("a method applies(cwd) returning whether it serves cwd", callable),
    "collect": ("a method collect(request) returning context parts", callable),
}


def _model_class(value: object) -> bool:
    from tai_core.plugins._settings import settings_model

    return settings_model(value) is None


#: Members a provider may have: checked when present.
PROVIDER_OPTIONAL: Contract = {
    "generator_fields": ("a pydantic model class (the generator keys it takes)", _model_class),
}

#: Members a context provider may have: checked when present.
CONTEXT_PROVIDER_OPTIONAL: Contract = {
    "additive": ("True or False (whether it adds parts to the primary's)", _flag),
}


def contract_problems(
    thing: object, contract: Contract, optional: Contract | None = None
) -> list[str]:
    """What ``thing`` lacks or gets wrong of ``contract`` and of the ``optional`` members
    it has (empty when it fulfils them)."""
    problems = []
    for member, (expected, check) in {**contract, **(optional or {})}.items():
        if not hasattr(thing, member):
            if member in contract:
                problems.append(f"{member} is missing ({expected})")
        elif not check(getattr(thing, member)):
            problems.append(f"{member} must be {expected}, not {getattr(thing, member)!r:.60}")
    return problems


def provider_problems(provider: object) -> list[str]:
    """What ``provider`` lacks of :class:`tai_core.models.Provider`."""
    return contract_problems(provider, PROVIDER, PROVIDER_OPTIONAL)


def session_command_problems(command: object) -> list[str]:
    """What ``command`` lacks of :class:`tai_core.plugins.SessionCommand`."""
    return contract_problems(command, SESSION_COMMAND)


def agent_command_problems(command: object) -> list[str]:
    """What ``command`` lacks of :class:`tai_core.plugins.AgentCommand`."""
    return contract_problems(command, AGENT_COMMAND)


def context_provider_problems(provider: object) -> list[str]:
    """What ``provider`` lacks of :class:`tai_core.context.ContextProvider`."""
    return contract_problems(provider, CONTEXT_PROVIDER, CONTEXT_PROVIDER_OPTIONAL)
