"""Blocks run without secrets by the wider rules: real runs (`tai -shell … chat`) whose
shell block dumps its environment into the tree."""

from __future__ import annotations

from pathlib import Path

from .test_attacks import shell_run

#: Variable -> a marker in its value; each must be gone from a block's environment.
SECRETS = {
    "GITHUB_PAT": "marker-pat",
    "SMTP_PASS": "marker-pass",
    "DB_PWD": "marker-pwd",
    "NPM_AUTH": "marker-auth",
    "SESSION_COOKIE": "marker-cookie",
    "DEPLOY_PRIVATE": "marker-private",
    "BW_SESSION": "marker-bw",
    "DATABASE_URL": "postgres://app:marker-url-pw@db.internal/app",
    "HTTPS_PROXY": "http://me:marker-proxy-pw@proxy:3128",
}
#: Variables that stay (set by the test; PWD and OLDPWD the shell sets itself).
KEPT = {
    "GOPATH": "/opt/go-path", "XDG_SESSION_ID": "7", "CACHE_URL": "redis://cache:6379/0",
    "GIT_REMOTE": "ssh://git@host/repo", "KEEP_ME": "ok",
}  # fmt: skip


def test_blocks_run_without_secrets_by_word_or_by_url(work: Path, env) -> None:
    result = shell_run(work, {**env, **SECRETS, **KEPT}, "cd . && env > seen.txt")
    assert result.returncode == 0, result.stderr
    seen = (work / "seen.txt").read_text()
    for name, value in SECRETS.items():
        assert name not in seen and value not in seen
    for name, value in KEPT.items():
        assert f"\n{name}={value}\n" in f"\n{seen}"
    names = {line.split("=", 1)[0] for line in seen.splitlines() if "=" in line}
    assert {"PWD", "OLDPWD", "PATH", "HOME"} <= names
