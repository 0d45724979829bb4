"""The shell policy's rules for git (tai_sandbox._git), one place at a time: every option,
setting and variable whose value git runs as a command is checked as shell code (a value
only known when the command runs is refused, naming where it was given), settings that load
code from elsewhere are refused, and so is what destroys what no checkpoint holds. The
lists are the module's own; each entry is tried, so an entry lost or misspelt shows here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_sandbox import policy
from tai_sandbox._git import _LOADING_KEYS, _PROGRAM_KEYS, _PROGRAM_OPTIONS, _PROGRAM_VARIABLES

DYNAMIC = '"$(cat f)"'
ENVIRON = {"HOME": "/home/u", "PATH": "/usr/bin:/bin"}


def decide(command: str, tmp_path: Path) -> tuple[bool, str]:
    return policy.decide(command, tmp_path, {}, ENVIRON)


def refusal(command: str, tmp_path: Path) -> str | None:
    """Why the policy refuses ``command``, or ``None`` when it allows it."""
    allowed, reason = decide(command, tmp_path)
    return None if allowed else reason


def only_known_when_run(where: str) -> str:
    return f"{where} runs …, a command only known when it runs"


def test_the_lists_are_as_reviewed() -> None:
    assert set(_PROGRAM_KEYS) == {
        "core.fsmonitor",
        "core.pager",
        "pager.*",
        "core.editor",
        "sequence.editor",
        "core.sshcommand",
        "core.askpass",
        "core.gitproxy",
        "credential.helper",
        "credential.*.helper",
        "diff.external",
        "diff.*.textconv",
        "diff.*.command",
        "filter.*.clean",
        "filter.*.smudge",
        "filter.*.process",
        "gpg.program",
        "gpg.*.program",
        "merge.*.driver",
        "uploadpack.packobjectshook",
        "remote.*.uploadpack",
        "remote.*.receivepack",
        "difftool.*.cmd",
        "mergetool.*.cmd",
        "web.browser",
        "browser.*.cmd",
        "man.*.cmd",
        "sendemail.smtpserver",
    }
    assert set(_LOADING_KEYS) == {"core.hookspath", "include.path", "includeif.*"}
    assert set(_PROGRAM_VARIABLES) == {
        "GIT_SSH_COMMAND",
        "GIT_SSH",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "GIT_PAGER",
        "GIT_ASKPASS",
        "GIT_EXTERNAL_DIFF",
        "GIT_PROXY_COMMAND",
    }
    assert set(OPTIONS) == {
        ("clone", "-u"), ("clone", "--upload-pack"), ("fetch", "--upload-pack"),
        ("pull", "--upload-pack"), ("ls-remote", "--upload-pack"),
        ("submodule", "--upload-pack"), ("push", "--receive-pack"), ("push", "--exec"),
        ("send-pack", "--receive-pack"), ("send-pack", "--exec"), ("archive", "--exec"),
        ("archive", "--remote-exec"), ("ls-remote", "--exec"), ("ls-remote", "--remote-exec"),
        ("rebase", "--exec"), ("rebase", "-x"), ("difftool", "--extcmd"), ("difftool", "-x"),
        ("grep", "--open-files-in-pager"), ("grep", "-O"),
        *(("filter-branch", f"--{kind}-filter")
          for kind in ("tree", "index", "msg", "env", "commit", "parent", "tag-name")),
    }  # fmt: skip


OPTIONS = [(command, option) for commands, options in _PROGRAM_OPTIONS for command in commands
           for option in options]  # fmt: skip


@pytest.mark.parametrize(("command", "option"), OPTIONS)
def test_each_option_whose_value_git_runs(command: str, option: str, tmp_path: Path) -> None:
    assert refusal(f"git {command} {option} {DYNAMIC} x", tmp_path) == only_known_when_run(
        f"git {command} {option}"
    )
    assert (
        refusal(f"git {command} {option} 'rm -rf ~' x", tmp_path)
        == "recursive rm deletes the home directory"
    )
    assert decide(f"git {command} {option} 'make test' x", tmp_path)[0]
    if option.startswith("--"):
        assert refusal(f"git {command} {option}={DYNAMIC} x", tmp_path) == only_known_when_run(
            f"git {command} {option}"
        )
    else:  # a short option's value is never attached with =
        assert decide(f"git {command} {option}={DYNAMIC} x", tmp_path)[0]


def test_an_option_of_another_subcommand_runs_nothing(tmp_path: Path) -> None:
    assert decide(f"git log --exec {DYNAMIC}", tmp_path)[0]
    assert decide(f"git commit -x {DYNAMIC}", tmp_path)[0]


def key_of(pattern: str) -> str:
    return pattern.replace("*", "sub")


@pytest.mark.parametrize("key", [key_of(p) for p in _PROGRAM_KEYS])
def test_each_setting_whose_value_git_runs(key: str, tmp_path: Path) -> None:
    shown = key.upper() if key != "core.fsmonitor" else key  # keys are case-insensitive
    assert refusal(f"git -c {shown}={DYNAMIC} log", tmp_path) == only_known_when_run(
        f"git -c {shown}"
    )
    assert (
        refusal(f"git -c {key}='!rm -rf ~' log", tmp_path)
        == "recursive rm deletes the home directory"
    )
    assert decide(f"git -c {key}=less log", tmp_path)[0]
    assert refusal(f"git clone -c {key}={DYNAMIC} url", tmp_path) == only_known_when_run(
        f"git clone -c {key}"
    )
    assert refusal(f"git clone --config {key}={DYNAMIC} url", tmp_path) == only_known_when_run(
        f"git clone --config {key}"
    )


@pytest.mark.parametrize("value", ["", "true", "FALSE", "yes", "no", "on", "off", "1", "0"])
def test_fsmonitor_may_be_switched_on_and_off(value: str, tmp_path: Path) -> None:
    assert decide(f"git -c core.fsmonitor={value} status", tmp_path)[0]


@pytest.mark.parametrize("key", [key_of(p) for p in _LOADING_KEYS] + ["includeIf.gitdir:/x.path"])
def test_settings_that_load_from_elsewhere_are_refused(key: str, tmp_path: Path) -> None:
    reason = f"git -c {key} loads hooks or configuration from elsewhere"
    assert decide(f"git -c {key}=/x log", tmp_path) == (False, reason)


@pytest.mark.parametrize("variable", _PROGRAM_VARIABLES)
def test_each_variable_whose_value_git_runs(variable: str, tmp_path: Path) -> None:
    assert refusal(f"{variable}={DYNAMIC} git fetch", tmp_path) == only_known_when_run(
        f"git with {variable}"
    )
    assert decide(f"{variable}='rm -rf ~' git fetch", tmp_path)[0] is False
    assert decide(f"{variable}=ssh git fetch", tmp_path)[0]


@pytest.mark.parametrize(
    ("command", "decision"),
    [
        ("git -c alias.x='!rm -rf ~' x", (False, "recursive rm deletes the home directory")),
        ("git -c alias.x='branch -D main' x",
         (False, "git branch -D deletes a branch with its unmerged commits")),
        (f"git -c alias.x={DYNAMIC} x",
         (False, "git -c alias.x runs git …, a command only known when it runs")),
        ("git -c alias.st=status st", (True, None)),
        (f"git -c {DYNAMIC}=x log", (False, "git -c sets …, a setting only known when it runs")),
        ("git -c", (True, None)),
        ("PAGER='rm -rf ~' git --config-env=core.pager=PAGER log",
         (False, "recursive rm deletes the home directory")),
        ("PAGER='rm -rf ~' git --config-env core.pager=PAGER log",
         (False, "recursive rm deletes the home directory")),
        (f"PAGER={DYNAMIC} git --config-env=core.pager=PAGER log",
         (False, only_known_when_run("git --config-env core.pager"))),
        ("git --config-env=core.pager= log", (True, None)),
        ("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm -rf ~' git log",
         (False, "recursive rm deletes the home directory")),
        ("GIT_CONFIG_COUNT=11 GIT_CONFIG_KEY_10=core.pager GIT_CONFIG_VALUE_10='rm -rf ~' git log",
         (False, "recursive rm deletes the home directory")),
        (f"GIT_CONFIG_KEY_3=core.pager GIT_CONFIG_VALUE_3={DYNAMIC} git log",
         (False, only_known_when_run("git GIT_CONFIG_KEY core.pager"))),
        (f"GIT_CONFIG_KEY_3={DYNAMIC} GIT_CONFIG_VALUE_3=x git log",
         (False, "git GIT_CONFIG_KEY sets …, a setting only known when it runs")),
        ("git -C /x -c core.pager='rm -rf ~' --git-dir /y log",
         (False, "recursive rm deletes the home directory")),
        ("git --exec-path=/x log", (False, "git --exec-path runs git's commands from elsewhere")),
        ("git bisect run rm -rf ~", (False, "recursive rm deletes the home directory")),
        ("git bisect run", (True, None)),
        ("git bisect start", (True, None)),
        ("git submodule foreach --recursive 'rm -rf ~'",
         (False, "recursive rm deletes the home directory")),
        (f"git submodule foreach {DYNAMIC}",
         (False, only_known_when_run("git submodule foreach"))),
        ("git submodule update", (True, None)),
        ("git fetch ext::sh", (False, "git fetch uses an ext:: remote, which runs a command")),
        ("git fetch origin ext", (True, None)),
    ],
)  # fmt: skip
def test_other_ways_git_runs_a_command(
    command: str, decision: tuple[bool, str | None], tmp_path: Path
) -> None:
    allowed, reason = decide(command, tmp_path)
    assert allowed is decision[0]
    if decision[1] is not None:
        assert reason == decision[1]


@pytest.mark.parametrize(
    ("command", "refusal"),
    [
        ("git push --force", "git push --force is a force-push, which rewrites shared history"),
        ("git push --mirror", "git push --mirror is a force-push, which rewrites shared history"),
        ("git push --force-if-includes", "git push --force-if-includes is a force-push, which "
         "rewrites shared history"),
        ("git push --force-with-lease=main", "git push --force-with-lease=main is a force-push, "
         "which rewrites shared history"),
        ("git push -uf origin", "git push -uf is a force-push, which rewrites shared history"),
        ("git push origin +main", "git push +main is a force-push, which rewrites shared history"),
        ("git push origin main", None),
        ("git push origin +", None),
        ("git push --follow-tags", None),
        ("git stash drop", "git stash drop destroys stashed work, which lives only in .git"),
        ("git stash clear", "git stash clear destroys stashed work, which lives only in .git"),
        ("git stash pop", None),
        ("git branch -D x", "git branch -D deletes a branch with its unmerged commits"),
        ("git branch -df x", "git branch -D deletes a branch with its unmerged commits"),
        ("git branch --delete --force x", "git branch -D deletes a branch with its unmerged "
         "commits"),
        ("git branch -d x", None),
        ("git branch -f x", None),
        ("git clean -fdx", "git clean -x deletes ignored files, which checkpoints do not keep"),
        ("git clean -fX", "git clean -x deletes ignored files, which checkpoints do not keep"),
        ("git clean -nfdx", None),
        ("git clean --dry-run -fdx", None),
        ("git clean -fd", None),
        ("git clean --exclude=x -f", None),
    ],
)  # fmt: skip
def test_what_no_checkpoint_holds(command: str, refusal: str | None, tmp_path: Path) -> None:
    allowed, reason = decide(command, tmp_path)
    assert (allowed, reason if refusal else None) == (refusal is None, refusal)
