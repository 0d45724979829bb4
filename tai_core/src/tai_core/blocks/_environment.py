"""The environment of programs that blocks start: tai's own, with its secrets taken out.

A shell block or a test has no business with the keys tai uses to reach the model, nor
with the user's other credentials: a command can print them, and a model can send what it
reads anywhere. So before a block's program starts (``tai_block_process``, implemented
here for the core plugin) its environment loses, by default:

* every variable whose name has ``KEY``, ``TOKEN``, ``SECRET``, ``PASSWORD``, ``PASSWD``,
  ``APIKEY`` or ``CREDENTIAL(S)`` as one of its ``_``-separated words (``OPENAI_API_KEY``,
  ``GITHUB_TOKEN``, ``AWS_SECRET_ACCESS_KEY``, ``GOOGLE_APPLICATION_CREDENTIALS``);
* the variables that hand out credentials by other names: ``SSH_AUTH_SOCK`` (the ssh
  agent signs with the user's keys), ``GPG_AGENT_INFO``, ``PGPASSWORD``, ``MYSQL_PWD``.

The table ``[shell_environment]`` shapes it as codex's shell environment policy does:
``exclude`` adds name patterns (shell-style, case-insensitive), ``include_only`` keeps only
the names it matches, ``set`` assigns values, ``keep_secrets = true`` turns the default
removals off. ``go test`` and shell commands get the same environment.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from typing import Any

#: Words of a variable name that mark it as a secret.
SECRET_WORDS = frozenset(
    {"KEY", "KEYS", "TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWD",
     "CREDENTIAL", "CREDENTIALS", "APIKEY"}
)  # fmt: skip
#: Variables that give access to credentials although their names do not say so.
SECRET_NAMES = frozenset({"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "PGPASSWORD", "MYSQL_PWD"})


def is_secret_name(name: str) -> bool:
    """True when the variable ``name`` holds (or leads to) a credential by the defaults."""
    upper = name.upper()
    return upper in SECRET_NAMES or bool(SECRET_WORDS & set(re.split(r"[_\W]+", upper)))


def _matches(name: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(name.upper(), pattern.upper()) for pattern in patterns)


def block_environment(env: dict[str, str], config: Mapping[str, Any]) -> None:
    """Apply the environment policy of ``config`` to ``env``, in place."""
    policy = config.get("shell_environment") or {}
    keep = bool(policy.get("keep_secrets", False))
    exclude = list(policy.get("exclude", []))
    include_only = list(policy.get("include_only", []))
    for name in list(env):
        if (
            (not keep and is_secret_name(name))
            or _matches(name, exclude)
            or (include_only and not _matches(name, include_only))
        ):
            del env[name]
    env.update({str(k): str(v) for k, v in (policy.get("set") or {}).items()})
