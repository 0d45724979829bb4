"""The environment of programs that blocks start: tai's own, with its secrets taken out.

A shell block or a test has no business with the keys tai uses to reach the model, nor
with the user's other credentials: a command can print them, and a model can send what it
reads anywhere. So before a block's program starts (``tai_block_process``, implemented
here for the core plugin) its environment loses, by default:

* every variable whose name has one of :data:`SECRET_WORDS` as one of its
  ``_``-separated words: ``KEY``, ``TOKEN``, ``SECRET``, ``PASSWORD``, ``PASSWD``,
  ``PASS``, ``PASSPHRASE``, ``APIKEY``, ``CREDENTIAL(S)``, ``CREDS``, ``AUTH``, ``PAT``
  (a personal access token), ``COOKIE(S)``, ``PRIVATE`` (``OPENAI_API_KEY``,
  ``GITHUB_TOKEN``, ``AWS_SECRET_ACCESS_KEY``, ``GOOGLE_APPLICATION_CREDENTIALS``,
  ``SMTP_PASS``, ``GH_PAT``, ``NPM_AUTH``);
* two words that are secrets only in some places: ``PWD`` in a name of several words
  (``DB_PWD``) — ``PWD`` alone is the working directory and stays, as ``OLDPWD`` does —
  and ``SESSION`` as the last word (``BW_SESSION``, Bitwarden's unlocked vault key) but
  not inside a name (``XDG_SESSION_ID``, ``DBUS_SESSION_BUS_ADDRESS`` are sockets and
  labels programs need);
* the variables that hand out credentials by other names: ``SSH_AUTH_SOCK`` (the ssh
  agent signs with the user's keys), ``GPG_AGENT_INFO``, ``PGPASSWORD``, ``MYSQL_PWD``,
  and 1Password's ``OP_SESSION_*``;
* every variable whose *value* holds a password in a URL, ``scheme://user:password@host``
  (``DATABASE_URL=postgres://app:pw@db/app``, ``REDIS_URL=redis://:pw@cache``, a proxy
  with a login): the name says nothing, the value is the credential. A URL with a user
  and no password (``ssh://git@host``) stays.

Words are matched whole, so ``PATH``, ``GOPATH``, ``HOME``, ``BYPASS``, ``AUTHOR`` and
``XAUTHORITY`` stay: over-matching costs a build that cannot find its tools, which is
why ``SESSION`` and ``PWD`` are narrowed rather than dropped.

The table ``[shell_environment]`` shapes it as codex's shell environment policy does:
``exclude`` adds name patterns (shell-style, case-insensitive), ``include_only`` keeps only
the names it matches, ``set`` assigns values, ``keep_secrets = true`` turns the default
removals off. ``go test`` and shell commands get the same environment.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Mapping
from typing import Any

#: Words of a variable name that mark it as a secret.
SECRET_WORDS = frozenset(
    {"KEY", "KEYS", "TOKEN", "TOKENS", "SECRET", "SECRETS", "PASSWORD", "PASSWORDS", "PASSWD",
     "PASS", "PASSPHRASE", "CREDENTIAL", "CREDENTIALS", "CREDS", "APIKEY", "AUTH", "PAT",
     "COOKIE", "COOKIES", "PRIVATE"}
)  # fmt: skip
#: Words that mark a secret only in a name of several words (``PWD`` alone is the
#: working directory).
SECRET_WORDS_IN_COMPOUNDS = frozenset({"PWD"})
#: Words that mark a secret only as the last word of a name (``BW_SESSION``, not
#: ``XDG_SESSION_ID``).
SECRET_LAST_WORDS = frozenset({"SESSION"})
#: Variables that give access to credentials although their names do not say so.
SECRET_NAMES = frozenset({"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "PGPASSWORD", "MYSQL_PWD"})
#: Prefixes of such variables (1Password's CLI keeps a session per account).
SECRET_PREFIXES = ("OP_SESSION_",)
#: A password in a URL: ``scheme://user:password@`` (the user may be empty, the password
#: not; neither holds ``/``, ``?``, ``#``, ``@`` or space, as URL syntax requires).
CREDENTIAL_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#@\s:]*:[^/?#@\s]+@")


def _words(name: str) -> list[str]:
    return [word for word in re.split(r"[_\W]+", name.upper()) if word]


def is_secret_name(name: str) -> bool:
    """True when the variable ``name`` holds (or leads to) a credential by the defaults."""
    upper = name.upper()
    if upper in SECRET_NAMES or upper.startswith(SECRET_PREFIXES):
        return True
    words = _words(upper)
    return bool(
        SECRET_WORDS.intersection(words)
        or (len(words) > 1 and SECRET_WORDS_IN_COMPOUNDS.intersection(words))
        or (words and words[-1] in SECRET_LAST_WORDS)
    )


def is_secret_value(value: str) -> bool:
    """True when ``value`` holds a password in a URL (``scheme://user:password@host``)."""
    return CREDENTIAL_URL.search(value) is not None


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
            (not keep and (is_secret_name(name) or is_secret_value(env[name])))
            or _matches(name, exclude)
            or (include_only and not _matches(name, include_only))
        ):
            del env[name]
    env.update({str(k): str(v) for k, v in (policy.get("set") or {}).items()})


def process_hook(
    hook: Any, config: Mapping[str, Any]
) -> Callable[[list[str], dict[str, str]], None]:
    """Every plugin's ``tai_block_process`` as one function of a program's arguments and
    environment (changed in place), for the programs tai starts outside a block — the
    project's formatter a change's finisher runs — so they get what a block's program
    gets. It raises what a plugin raises: then the program must not start."""

    def prepare(argv: list[str], env: dict[str, str]) -> None:
        hook.tai_block_process(argv=argv, env=env, config=config)

    return prepare
