"""The writable set and the protected paths: one definition for the mounts, the path
policy, the shell policy and the context providers."""

from __future__ import annotations

import os
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
        (".git/objects/ab/cdef", True),
        (".git/index", True),
        (".git/commondir", True),
        (".git/objects/info/alternates", True),
        ("sub/.git", True),
        (".tai-journal/1-a.commit", True),
        ("sub/.tai-journal", True),
        ("AGENTS.md", True),
        ("pkg/AGENTS.md", True),
        (".tai/agents/plan.agent.md", True),
        ("sub/.tai/skills/deploy/scripts/run.sh", True),
        ("AGENTS.md.new", False),
        ("docs/agents.md", False),
        (".tai-notes/x", False),
        (".gitignore", False),
        (".github/workflows/ci.yml", False),
        ("src/config", False),
        ("hooks/pre-commit", False),
    ],
)
def test_protection_rules(path: str, protected: bool) -> None:
    assert (protection(Path(path).parts) is not None) is protected


def test_the_writable_set(repo: Path, tmp_path: Path) -> None:
    config_dir, data_dir = tmp_path / "config", tmp_path / "data"
    environ = {
        "TAI_CONFIG_DIR": str(config_dir),
        "TAI_DATA_DIR": str(data_dir),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    go = (Path("/var/cache/tai-probe-go-build"), tmp_path / "go-under-tmp")
    writable = writable_set(repo, {"protected_paths": ["deploy"]}, environ, go_dirs=go)
    cache_dir = tmp_path / "cache" / "tai"  # tools tai installs (goimports) go here
    assert (cache_dir / "bin").is_dir() and (data_dir / "keys").is_dir()
    assert writable.roots == (repo, data_dir, cache_dir, Path("/tmp"), Path("/dev/shm"))
    assert writable.overlays == go
    assert writable.hidden == (data_dir / "keys",)
    assert writable.is_writable("src/main.go")
    assert writable.is_writable(data_dir / "tai-records.db")
    assert not writable.is_writable(data_dir / "keys" / "journal.key")
    assert not writable.is_writable(config_dir / "tai.toml")
    assert not writable.is_writable(config_dir / "agents.md")
    assert not writable.is_writable(cache_dir / "bin" / "goimports")
    assert writable.is_writable(cache_dir / "go-doc" / "x")
    assert not writable.is_writable("/var/cache/tai-probe-go-build/00/x")
    assert not writable.is_writable("../elsewhere.txt")
    assert not writable.is_writable("/etc/passwd")
    assert not writable.is_writable("deploy/run.sh")
    assert writable.refusal("/usr/x") == (
        f"/usr/x is outside the writable directories ({', '.join(map(str, writable.roots))})"
    )
    assert "git's directory (.git) is read-only" in writable.refusal(".git/hooks/pre-push")
    assert writable.is_writable("/dev/shm/scratch") and writable.is_writable("/tmp/scratch")


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
    (repo / "deep" / "a" / "b" / "c").mkdir(parents=True)
    (repo / "deep" / "a" / "b" / "c" / ".tai.toml").write_text("")
    (repo / ".tai-journal").mkdir()  # tai's own at the root: tai writes it inside
    found = existing_protected(writable_set(repo, {}, go_dirs=()))
    assert [path for path in found if path.is_relative_to(repo)] == sorted(
        [repo / ".git", repo / ".vscode", repo / "tai.toml", nested / ".git",
         repo / "node_modules/x/.git", repo / "deep/a/b/c/.tai.toml"],
        key=lambda path: (len(path.parts), str(path)),
    )  # fmt: skip


def test_a_git_file_protects_the_directory_it_points_to(repo: Path) -> None:
    gitdir = repo / "modules-store" / "lib"
    gitdir.mkdir(parents=True)
    (repo / "lib").mkdir()
    (repo / "lib" / ".git").write_text(f"gitdir: {gitdir}\n")
    writable = writable_set(repo, {}, go_dirs=())
    found = existing_protected(writable)
    assert repo / "lib" / ".git" in found and gitdir in found


def test_links_at_protected_names(repo: Path) -> None:
    (repo / "elsewhere").mkdir()
    (repo / ".vscode").symlink_to("elsewhere")
    (repo / "sub").mkdir()
    (repo / "sub" / "tai.toml").symlink_to("../missing.toml")
    found = existing_protected(writable_set(repo, {}, go_dirs=()))
    assert repo / "elsewhere" in found  # the target is bound, the link cannot be
    assert repo / ".vscode" not in found
    assert not any("missing" in str(path) for path in found)


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
    assert not hook(path="sub/.git/config", operation="create")[0]
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


def test_the_paths_command_lists_what_a_run_may_write(repo: Path, isolated_env) -> None:
    from ..conftest import run_tai

    (repo / "sub" / ".vscode").mkdir(parents=True)
    result = run_tai("sandbox", "paths", cwd=repo, env=isolated_env)
    assert result.returncode == 0, result.stderr
    sections = result.stdout.split("\n")
    writable = sections[sections.index("writable:") + 1]
    assert writable == f"  {repo.resolve()}"
    listed = result.stdout.split("writable, private (empty at the start, dropped when the run ")
    host, private = listed[0], listed[1].split("overlaid")[0]
    assert private == "ends):\n  /tmp\n  /dev/shm\n"  # fresh in the sandbox: not the host's
    assert "  /tmp\n" not in host and "  /dev/shm\n" not in host
    protected = result.stdout.split("protected (read-only inside the sandbox):\n")[1]
    assert f"  {repo.resolve() / '.git'}\n" in protected
    assert f"  {repo.resolve() / 'sub' / '.vscode'}\n" in protected
    assert f"  {Path(isolated_env['TAI_DATA_DIR']).resolve() / 'keys'}\n" in result.stdout
    assert "removed after each block and when the run ends" in result.stdout


@pytest.fixture
def fresh_go_dirs():
    """go_writable_dirs computed anew for the test (it is cached per process)."""
    from tai_sandbox.paths import go_writable_dirs

    go_writable_dirs.cache_clear()
    yield go_writable_dirs
    go_writable_dirs.cache_clear()


def test_go_dirs_come_from_the_environment_nested_ones_once(
    fresh_go_dirs, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("GOCACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("GOMODCACHE", str(tmp_path / "gopath" / "pkg" / "mod"))
    monkeypatch.setenv("GOPATH", f"{tmp_path / 'gopath'}{os.pathsep}relative{os.pathsep}")
    assert fresh_go_dirs() == (tmp_path / "cache", tmp_path / "gopath" / "pkg")


def test_go_dirs_not_in_the_environment_are_asked_of_go(fresh_go_dirs, monkeypatch) -> None:
    import subprocess

    for name in ("GOCACHE", "GOMODCACHE", "GOPATH"):
        monkeypatch.delenv(name, raising=False)
    cache, modcache, gopath = subprocess.run(
        ["go", "env", "GOCACHE", "GOMODCACHE", "GOPATH"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    dirs = fresh_go_dirs()
    assert Path(cache).resolve() in dirs
    assert Path(modcache).resolve() in dirs or Path(gopath, "pkg").resolve() in dirs
    assert all(d.is_absolute() for d in dirs)


def test_without_go_only_the_environment_counts(fresh_go_dirs, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no go there
    monkeypatch.setenv("GOCACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("GOMODCACHE", raising=False)
    monkeypatch.delenv("GOPATH", raising=False)
    assert fresh_go_dirs() == (tmp_path / "cache",)
