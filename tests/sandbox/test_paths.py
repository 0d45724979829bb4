"""The writable set and the protected paths: one definition for the mounts, the path
policy, the shell policy and the context providers."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tai_core.plugins import PluginHost
from tai_sandbox import is_writable
from tai_sandbox.paths import existing_protected, protection, writable_set


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    directory = tmp_path / "repo"
    directory.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=directory, check=True)
    return directory


@pytest.mark.parametrize(
    ("path", "protected"),
    [
        (".git/hooks/pre-commit", True),
        (".git/config", True),
        ("vendor/lib/.git/hooks", True),
        (".git/modules/sub/hooks/post-checkout", True),
        (".git/modules/a/b/config", True),
        (".git/worktrees/w/config.worktree", True),
        (".vscode/tasks.json", True),
        ("docs/tai.toml", True),
        (".tai.toml", True),
        (".git/objects/ab/cdef", False),
        (".git/index", False),
        ("src/config", False),
        ("hooks/pre-commit", False),
    ],
)
def test_protection_rules(path: str, protected: bool) -> None:
    assert (protection(Path(path).parts) is not None) is protected


def test_the_writable_set(repo: Path, tmp_path: Path) -> None:
    config_dir = tmp_path / "config"
    environ = {"TAI_CONFIG_DIR": str(config_dir), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    writable = writable_set(repo, {"protected_paths": ["deploy"]}, environ, go_dirs=())
    cache_dir = tmp_path / "cache" / "tai"  # tools tai installs (goimports) go here
    assert cache_dir.is_dir()
    assert writable.roots == (repo, config_dir, cache_dir, Path("/tmp"), Path("/dev/shm"))
    assert writable.is_writable("src/main.go")
    assert writable.is_writable(config_dir / "sessions.db")
    assert not writable.is_writable(config_dir / "tai.toml")
    assert not writable.is_writable("../elsewhere.txt")
    assert not writable.is_writable("/etc/passwd")
    assert not writable.is_writable("deploy/run.sh")
    assert "outside the writable directories" in writable.refusal("/usr/x")
    assert ".git/hooks runs code" in writable.refusal(".git/hooks/pre-push")


def test_symlinks_are_resolved(repo: Path) -> None:
    (repo / "h").symlink_to(".git/hooks")
    (repo / "up").symlink_to("..")
    writable = writable_set(repo, {}, go_dirs=())
    assert not writable.is_writable("h/pre-commit")
    assert not writable.is_writable("up/x")


def test_hooks_path_of_the_repository_is_protected(repo: Path) -> None:
    subprocess.run(["git", "config", "core.hooksPath", ".husky"], cwd=repo, check=True)
    assert not writable_set(repo, {}, go_dirs=()).is_writable(".husky/pre-commit")


def test_existing_protected_paths_are_found(repo: Path) -> None:
    nested = repo / "third_party" / "lib"
    nested.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=nested, check=True)
    (repo / ".vscode").mkdir()
    (repo / "tai.toml").write_text("")
    (repo / "node_modules" / "x" / ".git" / "hooks").mkdir(parents=True)
    found = existing_protected(writable_set(repo, {}, go_dirs=()))
    assert found == sorted(
        [repo / ".git/config", repo / ".git/hooks", repo / ".vscode", repo / "tai.toml",
         nested / ".git/config", nested / ".git/hooks"]
    )  # fmt: skip


def test_is_writable_answers_for_the_current_directory(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tai_sandbox.paths

    monkeypatch.chdir(repo)
    monkeypatch.setattr(tai_sandbox.paths, "_active", None)
    assert is_writable("main.go")
    assert not is_writable(".git/hooks/pre-commit")
    assert not is_writable("/usr/share/x")


def test_the_path_policy_hook(host: PluginHost, repo: Path, monkeypatch) -> None:
    import tai_sandbox.paths

    monkeypatch.chdir(repo)
    monkeypatch.setattr(tai_sandbox.paths, "_active", None)
    hook = host.pm.hook.tai_path_policy
    assert hook(path="main.go", operation="write")[0]
    allowed, reason = hook(path=".git/config", operation="write")
    assert not allowed and "protected" in reason
    assert not hook(path="/etc/hosts", operation="create")[0]
    assert hook(path="/etc/hosts", operation="read") is None


def test_installation_under_tmp_is_kept_visible(tmp_path: Path) -> None:
    from tai_sandbox._mounts import hidden_by_fresh_mounts

    venv = tmp_path / "venv"
    (venv / "lib" / "site").mkdir(parents=True)
    src = tmp_path / "src"
    src.mkdir()
    kept = hidden_by_fresh_mounts(
        [venv, venv / "lib" / "site", src, tmp_path / "gone", Path("/usr")]
    )
    assert kept == [src.resolve(), venv.resolve()]  # outermost first, then by name
