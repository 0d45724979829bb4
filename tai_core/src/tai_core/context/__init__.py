"""Context: the parts of a run's first request, and the order that keeps its prefix stable.

Providers (plugins: the Go provider, the any-text provider) collect parts; the prompt
builder (``_prompt``) orders them by tier and key and places the dynamic material — the
time, the task, loop feedback — last, so that the static prefix is byte-identical across
requests and stays in the model provider's cache. Secret files are withheld from every
part and named in one closing list (``_secrets``: the name rules and the theory).
"""

from tai_core.context._contract import (
    ERROR_LOG_PREFIX,
    ERROR_LOG_SUFFIX,
    TIER_CONTEXT,
    TIER_EXTERNAL,
    TIER_FILES,
    TIER_FOCUS,
    TIER_HINTS,
    ContextError,
    ContextPart,
    ContextProvider,
    ContextRequest,
    ContextTooLarge,
    SelectionError,
    is_error_log,
    matches,
    withheld,
)
from tai_core.context._secrets import (
    SECRET_NAMES,
    SecretCheck,
    hook_check,
    judged,
    names_only,
    secret_name,
    withheld_section,
)

__all__ = [
    "ERROR_LOG_PREFIX",
    "ERROR_LOG_SUFFIX",
    "SECRET_NAMES",
    "TIER_CONTEXT",
    "TIER_EXTERNAL",
    "TIER_FILES",
    "TIER_FOCUS",
    "TIER_HINTS",
    "ContextError",
    "ContextPart",
    "ContextProvider",
    "ContextRequest",
    "ContextTooLarge",
    "SecretCheck",
    "SelectionError",
    "hook_check",
    "is_error_log",
    "judged",
    "matches",
    "names_only",
    "secret_name",
    "withheld",
    "withheld_section",
]
