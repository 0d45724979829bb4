"""The parts the writable set is made of, each read from what a real host has: the hooks
directory a repository's configuration names, the git directory a ``.git`` file points
to, the Go directories ``go env`` gives, tai's own installation inside the working
directory, and tai's private directories (made, or taken back from a link or a file).

These run in the tai process before the sandbox exists, so they are called directly; the
files they read are written here as git, Go and an installation leave them."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from tai_sandbox import paths
from tai_sandbox._go_env import go_env
from tai_sandbox.paths import KEYS_DIR, link_targets, writable_set


def git_config(root: Path, text: bytes) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    (root / ".git" / "config").write_bytes(text)
    return root


@pytest.mark.parametrize(
    ("config", "named"),
    [
        (b'[core]\n\thooksPath = "Xhooks"\n', "Xhooks"),  # quoted, as git writes a path
        (b"[Core]\n  HooksPath=ci/hooks\n", "ci/hooks"),  # names are case-insensitive
        (b"[core]\n\thooksPath = a=b\n", "a=b"),  # the value may hold '='
        (b"[user]\n\tname = J\xf6rg\n[core]\n\thooksPath = h\n", "h"),  # latin-1 elsewhere
    ],
)
def test_the_hooks_directory_a_repository_names(tmp_path: Path, config: bytes, named: str) -> None:
    assert paths._hooks_path(git_config(tmp_path, config)) == (tmp_path / named).resolve()


@pytest.mark.parametrize(
    "config",
    [
        b"[alias]\n\thooksPath = not-core\n",  # another section's key of that name
        b"[Xcore]\n\thooksPath = not-core\n",  # a section whose name only ends in core
        b"hooksPath = before-any-section\n",
        b"[core]\n\thooksPath =\n",
    ],
)
def test_no_hooks_directory_unless_core_names_one(tmp_path: Path, config: bytes) -> None:
    assert paths._hooks_path(git_config(tmp_path, config)) is None


@pytest.mark.parametrize(
    ("content", "target"),
    [
        (b"gitdir: ../real/.git\n", "real/.git"),
        (b"gitdir: ../r\xe9al\n", "r\ufffdal"),  # not UTF-8: read with replacement
        (b"", None),  # empty
        (b"[core]\n", None),  # not a pointer
    ],
)
def test_a_git_file_points_to_its_git_directory(
    tmp_path: Path, content: bytes, target: str | None
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / ".git").write_bytes(content)
    found = link_targets([work / ".git"])
    assert found == ([] if target is None else [(tmp_path / target).resolve()])


def test_only_a_file_named_git_is_read_as_a_pointer(tmp_path: Path) -> None:
    (tmp_path / "tasks.json").write_text("gitdir: /etc\n")
    assert link_targets([tmp_path / "tasks.json"]) == []


def fake_go(bin_dir: Path, script: str) -> None:
    bin_dir.mkdir()
    go = bin_dir / "go"
    go.write_text(f"#!/bin/sh\n{script}\n")
    go.chmod(0o755)


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ('printf "/c\\n/m\\n/p\\n"', {"GOCACHE": "/c", "GOMODCACHE": "/m", "GOPATH": "/p"}),
        ('printf "/c\\n"', {"GOCACHE": "/c", "GOMODCACHE": "", "GOPATH": ""}),  # fewer lines
        ('echo "/c"; exit 2', {"GOCACHE": "", "GOMODCACHE": "", "GOPATH": ""}),  # go failed
    ],
)
def test_the_go_directories_come_from_go_env_when_the_environment_has_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str, expected: dict[str, str]
) -> None:
    fake_go(tmp_path / "bin", script)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    for name in expected:
        monkeypatch.delenv(name, raising=False)
    assert go_env(keep=False) == expected


def test_the_go_directories_of_the_environment_are_taken_as_they_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_go(tmp_path / "bin", 'printf "/wrong\\n/wrong\\n/wrong\\n"')
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    values = {"GOCACHE": "/c", "GOMODCACHE": "/m", "GOPATH": "/p"}
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    assert go_env(keep=False) == values


@pytest.fixture
def counted_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A go that answers ``go env`` and counts its runs, alone on PATH, with a cache
    directory of the test's own and Go's variables unset."""
    calls = tmp_path / "calls"
    fake_go(tmp_path / "bin", f'echo run >> {calls}; printf "/c\\n/m\\n/p\\n"')
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("GOCACHE", "GOMODCACHE", "GOPATH", "GOENV", "GOROOT", "GOFLAGS"):
        monkeypatch.delenv(name, raising=False)
    return calls


def runs(calls: Path) -> int:
    return len(calls.read_text().splitlines()) if calls.exists() else 0


EXPECTED = {"GOCACHE": "/c", "GOMODCACHE": "/m", "GOPATH": "/p"}


def test_go_env_is_asked_once_and_its_answer_kept(counted_go: Path, tmp_path: Path) -> None:
    assert go_env() == go_env() == EXPECTED
    assert runs(counted_go) == 1
    (kept,) = (tmp_path / "cache" / "tai" / "launch").glob("go-env-*.json")
    assert kept.stat().st_mode & 0o077 == 0


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(
            lambda tmp, mp: (tmp / "bin" / "go").write_text(
                (tmp / "bin" / "go").read_text() + "# upgraded\n"
            ),
            id="go replaced",
        ),
        pytest.param(
            lambda tmp, mp: (
                (tmp / "config" / "go").mkdir(parents=True)
                or (tmp / "config" / "go" / "env").write_text("GOPATH=/q\n")
            ),
            id="go env -w",
        ),
        pytest.param(lambda tmp, mp: mp.setenv("GOFLAGS", "-mod=mod"), id="a variable"),
        pytest.param(lambda tmp, mp: mp.setenv("GOPATH", "/set"), id="fewer asked"),
    ],
)
def test_go_env_is_asked_again_when_what_it_reads_changes(
    counted_go: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change
) -> None:
    go_env()
    change(tmp_path, monkeypatch)
    go_env()
    assert runs(counted_go) == 2
    go_env()
    assert runs(counted_go) == 2


def test_a_kept_answer_others_could_have_written_is_not_used(
    counted_go: Path, tmp_path: Path
) -> None:
    go_env()
    (kept,) = (tmp_path / "cache" / "tai" / "launch").glob("go-env-*.json")
    kept.write_text(kept.read_text().replace("/c", "/home"))
    kept.chmod(0o666)
    assert go_env() == EXPECTED
    assert runs(counted_go) == 2


def test_a_go_that_fails_is_asked_again(tmp_path: Path, monkeypatch) -> None:
    fake_go(tmp_path / "bin", f"echo run >> {tmp_path / 'calls'}; exit 2")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for name in ("GOCACHE", "GOMODCACHE", "GOPATH"):
        monkeypatch.delenv(name, raising=False)
    assert go_env() == go_env() == dict.fromkeys(EXPECTED, "")
    assert runs(tmp_path / "calls") == 2


def test_the_installation_is_the_interpreter_s_prefixes_and_its_absolute_import_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "relative-entry").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [*sys.path, "relative-entry", ""])
    found = paths.installation()
    assert Path(sys.prefix).resolve() in found and Path(sys.base_prefix).resolve() in found
    assert (tmp_path / "relative-entry").resolve() not in found


def environ(tmp_path: Path) -> dict[str, str]:
    return {"TAI_DATA_DIR": str(tmp_path / "data"), "XDG_CACHE_HOME": str(tmp_path / "cache")}


def test_tai_s_installation_inside_the_working_directory_stays_out_of_reach(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import path inside the working directory (a project's own virtual environment
    running tai) is protected; the working directory itself, a directory above it and
    one outside every writable root are not extra paths."""
    work = tmp_path / "work"
    site = work / ".venv" / "lib"
    site.mkdir(parents=True)
    outside = Path("/usr")
    monkeypatch.setattr(sys, "path", [str(site), str(work), str(tmp_path), str(outside)])
    extra = writable_set(work, {}, environ(tmp_path), go_dirs=()).extra
    assert site.resolve() in extra
    assert work.resolve() not in extra and tmp_path.resolve() not in extra
    assert outside not in extra


def test_tai_s_own_directories_are_private_and_taken_back_from_a_link(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / KEYS_DIR).symlink_to(tmp_path)  # planted: a link where tai keeps its keys
    old = os.umask(0o022)
    try:
        writable_set(tmp_path / "work", {}, environ(tmp_path), go_dirs=())
    finally:
        os.umask(old)
    keys = data / KEYS_DIR
    assert not keys.is_symlink() and keys.is_dir()
    assert stat.S_IMODE(keys.stat().st_mode) == 0o700
    made = [tmp_path / "cache/tai" / paths.BIN_DIR, tmp_path / "cache/tai" / paths.RUNS_DIR]
    assert [stat.S_IMODE(path.stat().st_mode) for path in made] == [0o700, 0o700]


def test_without_a_sandbox_the_writable_set_is_the_working_directory_s_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before anything activated a set, the one tai would use where it runs: with the
    protected paths of that directory's configuration."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "tai.toml").write_text('protected_paths = ["deploy"]\n')
    for name, value in environ(tmp_path).items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(work)
    monkeypatch.setattr(paths, "_active", None)
    assert (work / "deploy").resolve() in paths.current().extra
    assert not paths.is_writable("deploy/x") and paths.is_writable("src/x")
