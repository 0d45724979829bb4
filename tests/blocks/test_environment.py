"""The environment of blocks' programs: which variables the default rules take out."""

from __future__ import annotations

import pytest

from tai_core.blocks._environment import block_environment, is_secret_name, is_secret_value

SECRET = [
    "OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "LDAP_PASSWD",
    "GOOGLE_APPLICATION_CREDENTIALS", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "PGPASSWORD",
    "MYSQL_PWD", "SMTP_PASS", "PASS", "GPG_PASSPHRASE", "DB_PWD", "PWD_DB", "AWS_CREDS",
    "GH_PAT", "AZURE_DEVOPS_PAT", "NPM_AUTH", "AUTH", "BASIC_AUTH_HEADER", "SESSION_COOKIE",
    "COOKIES", "SSH_PRIVATE", "PRIVATE_DEPLOY", "BW_SESSION", "OP_SESSION_my_team",
    "db_pass", "Gh_Pat",
]  # fmt: skip
KEPT = [
    "PWD", "OLDPWD", "PATH", "HOME", "GOPATH", "GOROOT", "MANPATH", "USER", "SHELL", "TERM",
    "LANG", "TMPDIR", "XDG_SESSION_ID", "XDG_SESSION_TYPE", "DBUS_SESSION_BUS_ADDRESS",
    "SESSION_MANAGER", "GIT_AUTHOR_NAME", "XAUTHORITY", "NO_PROXY", "BYPASS_CACHE",
    "PATCH_LEVEL", "PASSTHROUGH", "KEEP_ME", "SSH_ASKPASS", "COMPASS_HOME",
]  # fmt: skip


@pytest.mark.parametrize("name", SECRET)
def test_secret_names_are_recognised(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", KEPT)
def test_ordinary_names_are_not(name: str) -> None:
    assert not is_secret_name(name)


@pytest.mark.parametrize(
    "value",
    [
        "postgres://u:p@h/db", "postgresql://app:s3cr%40t@db.internal:5432/app",
        "redis://:pw@cache:6379/0", "http://me:pw@proxy:3128", "amqp://guest:guest@mq//",
        "mongodb+srv://u:p@cluster.example.net/db?retryWrites=true",
        "first https://a.example, then ftp://x:y@files.example",
    ],
)  # fmt: skip
def test_values_with_a_password_in_a_url_are_recognised(value: str) -> None:
    assert is_secret_value(value)


@pytest.mark.parametrize(
    "value",
    [
        "/usr/local/bin:/usr/bin", "https://example.com:8443/path", "ssh://git@host:22/repo",
        "git@github.com:org/repo.git", "http://user:@host", "https://host/a@b:c",
        "localhost,127.0.0.1", "postgres://db.internal/app", "user:pass@host",
    ],
)  # fmt: skip
def test_other_values_are_not(value: str) -> None:
    assert not is_secret_value(value)


def base() -> dict[str, str]:
    return {
        "PWD": "/work/p", "OLDPWD": "/work", "PATH": "/usr/bin:/bin", "HOME": "/root",
        "GOPATH": "/root/go", "GITHUB_PAT": "marker-pat", "SMTP_PASS": "marker-pass",
        "DATABASE_URL": "postgres://u:marker-pw@h/db", "CACHE_URL": "redis://cache:6379",
        "XDG_SESSION_ID": "3", "BW_SESSION": "marker-bw",
    }  # fmt: skip


def test_block_environment_removes_secret_names_and_credential_urls() -> None:
    env = base()
    block_environment(env, {})
    assert env == {
        "PWD": "/work/p", "OLDPWD": "/work", "PATH": "/usr/bin:/bin", "HOME": "/root",
        "GOPATH": "/root/go", "CACHE_URL": "redis://cache:6379", "XDG_SESSION_ID": "3",
    }  # fmt: skip


def test_keep_secrets_keeps_both_kinds_and_set_comes_last() -> None:
    env = base()
    block_environment(env, {"shell_environment": {"keep_secrets": True}})
    assert env == base()
    env = base()
    block_environment(env, {"shell_environment": {"set": {"DATABASE_URL": "sqlite://"}}})
    assert env["DATABASE_URL"] == "sqlite://" and "SMTP_PASS" not in env
