"""Secret files: the name rules, and how a withheld file is named in the context.

THEORY_OF_WITHHELD_SECRETS: a file that holds credentials must never reach a model
provider — the request leaves the machine, may be logged, cached or trained on, and a key
once sent cannot be unsent. So every path that puts file content in a request (context
providers, ``-file``, ``ingest``) asks one question first, the hook
``tai_secret_file(path, data, config)``: "why is this file withheld?". The first plugin
that gives a reason withholds it. Withheld is not hidden: each withheld file is named, with
its reason, in one closing part of the context ("Files withheld as secrets"), so the model
knows the file exists, does not invent its content, and asks the user when the task needs
it.

Two kinds of rule answer the hook:

* **By name** (this module, answered by the core's own plugin, which cannot be disabled):
  environment files, private keys and key stores, credential files of tools and clouds,
  Terraform state, and tai's own configuration (it may hold ``api_key``). A name is
  checked without reading the file, so a ``*.tfstate`` of megabytes costs nothing. The
  list is :data:`SECRET_NAMES`, one entry per rule with its reason; the configuration key
  ``secret_files`` appends patterns (a ``!pattern`` sends again what an earlier rule
  withheld, e.g. ``!tai.toml`` for a project whose ``tai.toml`` holds no key).
* **By content** (the ``secrets`` plugin of tai-sandbox): a detector of real credential
  formats in the bytes about to be sent (a file with an innocent name that holds an AWS
  key). Without that plugin only names are judged.

The patterns are a subset of gitignore's, implemented here because tai-core takes no
dependency on a pattern library: ``*``, ``?`` and ``[…]`` stay inside one path segment,
``**`` crosses segments; a pattern without a slash (a trailing one aside) matches a file
or directory name at any depth, and a matching directory withholds everything under it;
a pattern with a slash is anchored at the working directory unless it starts with ``**/``;
a trailing ``/`` matches directories only; ``!`` negates; the last matching rule decides.
Paths outside the working directory (a link's target, ``-file /abs/path``) are judged by
the same rules, so ``~/.aws/credentials`` is withheld wherever it is reached from.

Templates (``.env.example``, ``.env.sample``, ``.env.template``, ``.env.dist``) are sent:
they name the variables a project needs with placeholder values, which is what the model
needs to know; a real key pasted into one is still caught by the content rule.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from tai_core.patterns import glob_to_regex

#: Why a file is withheld (``None``: it is not). ``data`` is ``None`` when only the name
#: is judged (a listing that shows no content).
SecretCheck = Callable[[str, "bytes | None"], "str | None"]

#: The built-in name rules, in order (later rules win): ``(pattern, reason)``; a reason of
#: ``""`` marks a ``!`` negation.
SECRET_NAMES: tuple[tuple[str, str], ...] = (
    (".env", "environment file"),
    (".env.*", "environment file"),
    ("*.env", "environment file"),
    ("!.env.example", ""),
    ("!.env.sample", ""),
    ("!.env.template", ""),
    ("!.env.dist", ""),
    ("*.pem", "PEM key or certificate"),
    ("*.key", "private key"),
    ("*.p8", "PKCS#8 private key"),
    ("*.ppk", "PuTTY private key"),
    ("*.p12", "PKCS#12 key store"),
    ("*.pfx", "PKCS#12 key store"),
    ("*.jks", "Java key store"),
    ("*.keystore", "key store"),
    ("*.kdbx", "KeePass database"),
    ("*.gpg", "GnuPG key ring or encrypted file"),
    ("id_rsa*", "SSH private key"),
    ("id_dsa*", "SSH private key"),
    ("id_ecdsa*", "SSH private key"),
    ("id_ed25519*", "SSH private key"),
    ("!id_*.pub", ""),
    (".netrc", "netrc credentials"),
    ("_netrc", "netrc credentials"),
    (".npmrc", "npm configuration, may hold registry tokens"),
    (".pypirc", "PyPI credentials"),
    (".pgpass", "PostgreSQL passwords"),
    (".my.cnf", "MySQL client configuration, may hold a password"),
    (".git-credentials", "git credential store"),
    (".dockercfg", "Docker registry credentials"),
    ("**/.docker/config.json", "Docker registry credentials"),
    ("**/.aws/credentials", "AWS credentials"),
    ("**/.aws/config", "AWS configuration"),
    (".azure/", "Azure CLI credentials"),
    ("**/gcloud/credentials.db", "Google Cloud credentials"),
    ("**/gcloud/access_tokens.db", "Google Cloud credentials"),
    ("**/gcloud/legacy_credentials/", "Google Cloud credentials"),
    ("application_default_credentials.json", "Google Cloud credentials"),
    ("*service-account*.json", "service account key"),
    ("client_secret*.json", "OAuth client secret"),
    ("credentials.json", "credentials file"),
    ("**/.kube/config", "Kubernetes credentials"),
    ("kubeconfig", "Kubernetes credentials"),
    ("*.kubeconfig", "Kubernetes credentials"),
    (".vault-token", "Vault token"),
    (".terraformrc", "Terraform credentials"),
    ("*.tfstate", "Terraform state, holds resource secrets"),
    ("*.tfstate.*", "Terraform state, holds resource secrets"),
    ("*.tfvars", "Terraform variables"),
    ("*.tfvars.json", "Terraform variables"),
    (".htpasswd", "password file"),
    ("htpasswd", "password file"),
    (".secrets", "secrets file"),
    ("secrets.json", "secrets file"),
    ("secrets.toml", "secrets file"),
    ("secrets.yaml", "secrets file"),
    ("secrets.yml", "secrets file"),
    ("secrets.ini", "secrets file"),
    ("tai.toml", "tai configuration, may hold api_key"),
    (".tai.toml", "tai configuration, may hold api_key"),
)


@attrs.frozen
class _Rule:
    pattern: str  # compiled at the first name the quick test cannot settle
    reason: str
    negated: bool
    directory: bool
    anchored: bool
    #: The pattern's text when it has no wildcard: compared, never compiled (two thirds
    #: of the rules, so a name that passes the quick test compiles a third of them).
    literal: str | None = None

    def matches(self, parts: Sequence[str]) -> bool:
        last = len(parts) - 1
        for index in range(len(parts)):
            if self.directory and index == last:
                break
            subject = "/".join(parts[: index + 1]) if self.anchored else parts[index]
            if self.literal is not None:
                if subject == self.literal:
                    return True
            elif _compiled(self.pattern).fullmatch(subject):
                return True
        return False


def _rule(pattern: str, reason: str) -> _Rule | None:
    text = pattern.strip()
    if not text or text.startswith("#"):
        return None
    negated = text.startswith("!")
    text = text.removeprefix("!")
    directory = text.endswith("/")
    text = text.rstrip("/")
    anchored = "/" in text
    text = text.removeprefix("/")
    if text.startswith("**/") and "/" not in text[3:]:
        text, anchored = text[3:], False  # "**/name" is "name" at any depth
    literal = None if any(c in text for c in "*?[") else text
    return _Rule(glob_to_regex(text), reason, negated, directory, anchored, literal)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


@functools.lru_cache(maxsize=16)
def _rules(extra: tuple[str, ...]) -> tuple[_Rule, ...]:
    configured = ((p, f"matches secret_files pattern {p!r}") for p in extra)
    rules = (_rule(pattern, reason) for pattern, reason in (*SECRET_NAMES, *configured))
    return tuple(rule for rule in rules if rule is not None)


@functools.lru_cache(maxsize=16)
def _quick(extra: tuple[str, ...]) -> tuple[frozenset[str], re.Pattern[str] | None]:
    """What settles most names at once: the literal rules' texts, to look up in a set,
    and the other rules' patterns joined into one. A subject that neither matches cannot
    match any rule; a name that only a literal matches compiles no rule's pattern."""
    rules = _rules(extra)
    literals = frozenset(rule.literal for rule in rules if rule.literal is not None)
    globs = [rule.pattern for rule in rules if rule.literal is None]
    joined = re.compile("|".join(f"(?:{pattern})" for pattern in globs)) if globs else None
    return literals, joined


def _parts(path: str) -> list[str]:
    return [part for part in path.replace("\\", "/").split("/") if part not in ("", ".")]


def secret_name(path: str, config: Mapping[str, Any] | None = None) -> str | None:
    """Why the file at ``path`` (relative to the working directory, ``/``-separated, or
    absolute) is withheld by its name — :data:`SECRET_NAMES` and the configuration's
    ``secret_files`` — or ``None`` when its name is not a secret's."""
    extra = tuple(str(p) for p in (config or {}).get("secret_files", ()))
    parts = _parts(path)
    subjects = [*parts, *("/".join(parts[: i + 1]) for i in range(1, len(parts)))]
    literals, joined = _quick(extra)
    by_literal = not literals.isdisjoint(subjects)
    by_glob = joined is not None and any(joined.fullmatch(subject) for subject in subjects)
    if not (by_literal or by_glob):
        return None  # every rule tests one of these subjects: none can match
    reason = None
    for rule in _rules(extra):
        if not (by_literal if rule.literal is not None else by_glob):
            continue  # its kind matched no subject: neither can it
        if parts and rule.matches(parts):
            reason = None if rule.negated else rule.reason
    return reason


def names_only(config: Mapping[str, Any] | None = None) -> SecretCheck:
    """A check that judges names only (what holds when no plugin can be asked)."""

    def check(path: str, data: bytes | None) -> str | None:
        del data
        return secret_name(path, config)

    return check


def hook_check(hook: Any, config: Mapping[str, Any]) -> SecretCheck:
    """The check that asks every plugin through ``tai_secret_file`` (first reason wins)."""

    def check(path: str, data: bytes | None) -> str | None:
        try:
            answer = hook.tai_secret_file(path=path, data=data, config=config)
        except Exception as error:  # noqa: BLE001 - a check that cannot answer withholds
            return f"not judged ({error})"  # a plugin's failure names it (PluginHookError)
        return str(answer) if answer else None

    return check


def judged(secret: SecretCheck, shown: str, real: str, data: bytes | None = None) -> str | None:
    """Why a file is withheld: asked under the path it is ``shown`` as (with its ``data``)
    and, when that is a link leading elsewhere, under the path of what it leads to, its
    ``real`` path (``notes -> ~/.aws/credentials`` is withheld by its target's name)."""
    reason = secret(shown, data)
    if reason is None and real != shown:
        reason = secret(real, None)
    return reason


def withheld_section(withheld: Mapping[str, str]) -> str:
    """The closing list of withheld files (path → reason), sorted by path; ``""`` when
    none is."""
    if not withheld:
        return ""
    listing = "".join(f"- {path} ({withheld[path]})\n" for path in sorted(withheld))
    return (
        "Files withheld as secrets (they exist, but their content is not shown; ask the user "
        f"if the task needs what they hold):\n{listing}"
    )
