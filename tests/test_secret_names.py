"""The name rules of secret files (tai_core.context._secrets), as the core plugin answers."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tai_core.context import _secrets, secret_name
from tai_core.plugins import PluginHost


@pytest.mark.parametrize(
    "path",
    [
        ".env", "app/.env.production", "prod.env", "certs/site.pem", "tls.key", "id_rsa",
        "id_ed25519_work", "/home/u/.ssh/id_ecdsa", ".netrc", "_netrc", ".npmrc", ".pypirc",
        ".pgpass", ".git-credentials", ".docker/config.json", "/home/u/.aws/credentials",
        "home/.aws/config", ".azure/msal_token_cache.json", "application_default_credentials.json",
        "/home/u/.kube/config", "kubeconfig", "credentials.json", "infra/prod.tfstate",
        "infra/prod.tfstate.backup", "vars.tfvars", ".htpasswd", "tai.toml", "sub/.tai.toml",
        "store.p12", "keys.jks", "secrets.yaml",
    ],
)  # fmt: skip
def test_withheld_by_name(path: str) -> None:
    assert secret_name(path)


@pytest.mark.parametrize(
    "path",
    [
        ".env.example", ".env.sample", ".env.template", "id_rsa.pub", "go.sum", "uv.lock",
        "package-lock.json", "src/main.py", "config.json", "secrets.py", "keys.go", "a/.azure",
        "aws/credentials.md", "docs/env.md",
    ],
)  # fmt: skip
def test_sent(path: str) -> None:
    assert secret_name(path) is None


def test_configured_patterns_extend_and_negate() -> None:
    config = {"secret_files": ["deploy/*.yaml", "**/vault/", "!tai.toml", "# a comment"]}
    assert secret_name("deploy/prod.yaml", config) == "matches secret_files pattern 'deploy/*.yaml'"
    assert secret_name("x/deploy/prod.yaml", config) is None  # anchored at the working dir
    assert secret_name("deploy/sub/prod.yaml", config) is None  # * stays in one segment
    assert secret_name("a/vault/token", config)
    assert secret_name("tai.toml", config) is None
    assert secret_name(".env", config) == "environment file"


def test_the_core_plugin_answers_the_hook(host: PluginHost) -> None:
    hook = host.pm.hook.tai_secret_file
    assert hook(path=".env", data=None, config={}) == "environment file"
    assert hook(path="notes.txt", data=b"plain\n", config={}) is None
    assert hook(path="notes.txt", data=None, config={}) is None


#: Path segments near the rules: their literal names, names their globs match or miss by a
#: character, and plain ones.
_SEGMENTS = st.one_of(
    st.sampled_from([
        ".env", ".env.example", "prod.env", "id_rsa", "id_rsa.pub", "id_ed25519_x", "tai.toml",
        ".tai.toml", "x.pem", "pem", ".aws", "credentials", "config", "config.json", ".docker",
        "gcloud", "legacy_credentials", "my-service-account.json", "client_secret_1.json",
        "a.tfstate.1", ".azure", "vault", "deploy", "prod.yaml", "src", "main.py", "kubeconfig",
        "key1.txt",
    ]),
    st.text("abc.-_*?[]/", min_size=1, max_size=6),
)  # fmt: skip
_CONFIGS = st.sampled_from(
    [(), ("deploy/*.yaml",), ("**/vault/", "!tai.toml"), ("main.py",), ("key[0-9].txt",)]
)


@given(st.lists(_SEGMENTS, min_size=1, max_size=4), _CONFIGS)
@example(["key1.txt"], ("key[0-9].txt",))  # a class is a wildcard too
def test_the_quick_tests_decide_as_every_rule_would(segments: list[str], extra: tuple) -> None:
    """The quick tests that settle most names (literal names looked up, the globs joined
    into one pattern) never change a verdict: it is the one of testing every rule, each by
    its compiled pattern, the last that matches deciding."""
    path = "/".join(segments)
    parts = _secrets._parts(path)
    verdict = None
    for rule in _secrets._rules(extra):
        if parts and attrs.evolve(rule, literal=None).matches(parts):
            verdict = None if rule.negated else rule.reason
    assert secret_name(path, {"secret_files": list(extra)}) == verdict
