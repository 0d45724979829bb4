"""The closed schema of ``tai.toml``: every key tai knows, with its type.

Closed on purpose: a misspelt key (``modle = "x"``) is an error naming the file and the
key, not a setting silently ignored. Keys are those of the original's configuration,
written in TOML; a few have aliases kept from the original (``model_name`` for
``model``), where the canonical name wins when both are set.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import attrs

#: Value types: scalar types, a :class:`Bounded` number, ``"strs"`` (list of strings,
#: concatenated across files), ``"str|strs"`` (a string or a list; lists concatenate),
#: ``"tables"`` (list of tables, concatenated), ``"table"`` (nested keys with their own
#: schema), ``"map"`` (free keys).
Schema = Mapping[str, Any]


@attrs.frozen
class Bounded:
    """A number with a range, checked where the type is: TOML accepts ``inf``, ``nan`` and
    negative numbers, and a timeout of ``nan`` or a size of ``-1`` set by mistake would
    otherwise be obeyed silently (a run that never times out, a context that is always
    full). Keeping the range in the schema checks every key in one place, with the file
    and the key in the message."""

    #: ``int`` or ``float`` (an integer is taken where a float is expected).
    type: type
    #: What a valid value is, for the message: "… must be <description>".
    description: str
    minimum: float = 0
    #: Whether ``minimum`` itself is allowed.
    inclusive: bool = False
    #: The largest value allowed (itself included).
    maximum: float = math.inf

    def accepts(self, value: float) -> bool:
        """True when ``value`` (already of :attr:`type`) is finite and in range."""
        if not math.isfinite(value) or value > self.maximum:
            return False
        return value >= self.minimum if self.inclusive else value > self.minimum


@attrs.frozen
class OneOf:
    """A string from a fixed set: a mode mistyped (``approve = "nevr"``) would otherwise
    be read only when the mode is needed, in the middle of a run."""

    choices: tuple[str, ...]

    @property
    def description(self) -> str:
        """What a valid value is, for the message: "… must be <description>"."""
        return "one of " + ", ".join(f'"{choice}"' for choice in self.choices)


@attrs.frozen
class WebAddress:
    """An ``http://`` or ``https://`` address with a host: ``base_url = "127.0.0.1:8000"``
    (the scheme left out) would otherwise be found unusable only when the first request
    is sent, as a failed run."""

    description: str = "an http:// or https:// address (http://HOST[:PORT][/PATH])"

    def accepts(self, value: str) -> bool:
        """True when ``value`` names a scheme tai speaks and a host."""
        from urllib.parse import urlsplit

        try:
            address = urlsplit(value)
        except ValueError:  # an unclosed [ of an IPv6 host
            return False
        return address.scheme.lower() in ("http", "https") and bool(address.hostname)


#: A web address: the base URL of a model's API, a proxy.
WEB_ADDRESS = WebAddress()

#: Seconds to wait: finite and above zero (a zero or negative timeout ends everything at once).
DURATION = Bounded(float, "a finite number of seconds above 0")
#: Bytes or tokens: a whole number above zero.
SIZE = Bounded(int, "a positive integer")
#: A count where zero means none (thinking tokens).
COUNT = Bounded(int, "an integer of 0 or more", inclusive=True)
#: How often a failing model call is repeated (the call itself not counted).
RETRIES = Bounded(int, "an integer from 0 to 20", inclusive=True, maximum=20)
#: The first wait before a failing model call is repeated (each next one doubles).
RETRY_DELAY = Bounded(float, "a number of seconds above 0 and at most 20", maximum=20.0)
#: A sampling temperature: finite, not negative.
TEMPERATURE = Bounded(float, "a finite number of 0 or more", inclusive=True)

#: A share of the model's window: above 0, at most 1.
RATIO = Bounded(float, "a number above 0 and at most 1", maximum=1.0)

#: The schema key of a table whose other keys are checked later, by whom its value names.
OPEN = "*"

GENERATOR_SCHEMA: Schema = {
    "name": str,
    "type": str,
    "model": str,
    "family": str,
    "base_url": WEB_ADDRESS,
    "api_key": str,
    "api_version": str,
    "context_tokens": SIZE,
    "max_generate_tokens": SIZE,
    "max_thinking_tokens": COUNT,
    "temperature": TEMPERATURE,
    "reasoning_effort": str,
    "disable_search": bool,
    "disable_tools": bool,
    "extra_arguments": "map",
    "is_open_router": bool,
    "is_azure": bool,
    "service_tier": str,
    "aliases": "strs",
    "redirect": str,
    "random_redirect": "strs",
    "no_proxy": bool,
    "preserved_thinking": bool,
    "zero_data_retention": bool,
    "read_timeout": DURATION,
    "retries": RETRIES,
    "retry_delay": RETRY_DELAY,
    "provider": "map",
    "variants": "tables",
    # Keys of the provider's own (its generator_fields model), checked once plugins have
    # loaded, when the provider serving the entry's type is known: plugins/_settings.py.
    OPEN: "provider",
}

GO_SCHEMA: Schema = {
    "load_dir": str,
    "load_patterns": "strs",
    "context_patterns": "strs",
    "doc_patterns": "strs",
    "hidden": "strs",
    "no_tests": bool,
    "show_token_counts": bool,
    "envs": "strs",
    "extra_system_prompt": "str|strs",
    "family_extra_system_prompt": "map",
}

CONFIG_SCHEMA: Schema = {
    "model": str,
    "fast_model": str,
    "handoff_model": str,
    "review_models": "strs",
    "max_tokens": SIZE,
    "extra_system_prompt": "str|strs",
    "family_extra_system_prompt": "map",
    "match": "strs",
    "ignore": "strs",
    "files": "strs",
    "focus": "strs",
    "effort": str,
    "temperature": TEMPERATURE,
    "shell": bool,
    "allowed_shell_commands": "str|strs",
    # Which shell commands run unasked: auto, ask or never (tai_sandbox._approval).
    "approve": OneOf(("auto", "ask", "never")),
    "shell_timeout": DURATION,
    "go_test_timeout": DURATION,
    "pytest_timeout": DURATION,
    "thoughts": bool,
    "summarize_thoughts": bool,
    "summary_language": str,
    "apply": bool,
    "no_memory": bool,
    # Send the project's AGENTS.md files with every run (the agents-md plugin).
    "agents_md": bool,
    "record": bool,
    # Keep every session in the sessions database (tai sessions, tai ai -resume).
    "keep_sessions": bool,
    "confidential_mode": bool,
    "review": bool,
    "log_level": str,
    "proxy": WEB_ADDRESS,
    "schedule_interval": DURATION,
    # Compaction of long conversations (tai_core.runtime._compaction): on by default; a
    # turn whose request holds threshold_ratio of the window compacts first, to a summary
    # of at most target_ratio of it.
    "auto_compact": (
        "table",
        {"enabled": bool, "threshold_ratio": RATIO, "target_ratio": RATIO},
    ),
    "disabled_plugins": "strs",
    # [plugins.NAME]: each plugin's own settings, checked against the model it declares
    # (tai_plugin_settings) once plugins have loaded: tai_core.plugins._settings.
    "plugins": "map",
    "protected_paths": "strs",
    # Sync every flush to the disk before it commits, so a power loss cannot leave a file
    # half written (tai_core.store._flush); false trades that for speed.
    "durable": bool,
    "sandbox_network": bool,
    # Files larger than this many bytes are left out of checkpoints (tai undo).
    "checkpoint_max_file_bytes": int,
    "shell_environment": (
        "table",
        {"exclude": "strs", "include_only": "strs", "set": "map", "keep_secrets": bool},
    ),
    # Gitignore-style patterns of further secret files: withheld from every context and
    # fetch and named as withheld; "!pattern" sends again what a built-in rule withholds
    # (the rules and their syntax: tai_core.context._secrets).
    "secret_files": "strs",
    "max_context_bytes": SIZE,
    "ingest_max_bytes": SIZE,
    "ingest_timeout": DURATION,
    "generators": ("tables", GENERATOR_SCHEMA),
    "go": ("table", GO_SCHEMA),
    "cmd_ai": ("table", {"model": str, "fast_model": str, "handoff_model": str}),
    **{
        f"{provider}_api_key": str
        for provider in (
            "openai",
            "anthropic",
            "google",
            "huoshan",
            "baidu",
            "deepseek",
            "openrouter",
            "tencent",
            "aliyun",
            "zhipu",
            "vercel",
            "nvidia",
            "azure",
            "aws_bedrock",
            "opencode_go",
        )
    },
    "openrouter_endpoint": str,
    "azure_endpoint": str,
    "azure_api_version": str,
}

#: Alias → canonical key. The canonical key wins when a file sets both.
ALIASES: Mapping[str, str] = {
    "model_name": "model",
    "fast_model_name": "fast_model",
    "handoff_model_name": "handoff_model",
    "max_context_tokens": "max_tokens",
    "match_patterns": "match",
    "proxy_addr": "proxy",
    "proxy_address": "proxy",
    "http_proxy": "proxy",
    "open_router_api_key": "openrouter_api_key",
}
