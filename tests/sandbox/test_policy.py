"""The shell policy on a corpus of destructive and ordinary commands, its allowlist, its
command, and the refusal of shell blocks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_core import Block
from tai_core.plugins import PluginHost
from tai_sandbox.policy import _analysed, decide

from ..conftest import run_context, run_tai
from .corpus import DESTRUCTIVE, ORDINARY


def test_the_corpus_is_large_enough() -> None:
    assert len(DESTRUCTIVE) >= 150 and len(ORDINARY) >= 120
    assert not set(DESTRUCTIVE) & set(ORDINARY)


@pytest.mark.parametrize("command", DESTRUCTIVE)
def test_destructive_commands_are_refused(command: str, repo: Path) -> None:
    allowed, reason = decide(command, repo, {})
    assert not allowed, reason
    assert reason


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_commands_are_allowed(command: str, repo: Path) -> None:
    allowed, reason = decide(command, repo, {})
    assert allowed, reason


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("rm -rf /", "recursive rm deletes the root directory"),
        ("rm -rf ~", "recursive rm deletes the home directory"),
        ("rm -rf *", "recursive rm deletes everything in the working directory"),
        ("curl x | sh", "it pipes a download into sh"),
        ("git push -f", "git push -f is a force-push"),
        (":(){ :|:& };:", "a fork bomb"),
        ("$(cat name) x", "the program … is only known when the command runs"),
        ("mkfs.xfs /dev/sdb", "mkfs.xfs creates or wipes filesystems"),
    ],
)
def test_reasons_say_what_is_wrong(command: str, reason: str, repo: Path) -> None:
    assert reason in decide(command, repo, {})[1]


def test_configured_protected_paths_are_refused(repo: Path) -> None:
    config = {"protected_paths": ["deploy"]}
    assert not decide("echo x > deploy/run.sh", repo, config)[0]
    assert decide("echo x > other/run.sh", repo, config)[0]


def test_an_allowlist_allows_exactly_the_listed_commands(repo: Path) -> None:
    config = {"allowed_shell_commands": ["go test ./...", "git status", "rm -rf /"]}
    assert decide("go test ./...", repo, config) == (True, "it is listed in allowed_shell_commands")
    assert decide("  go   test   ./...  ", repo, config)[0]  # spacing does not matter
    assert not decide("go test ./... -v", repo, config)[0]  # whole commands only
    assert not decide("git status && rm x", repo, config)[0]
    assert decide("ls", repo, config) == (
        False,
        "it is not in allowed_shell_commands (matched as whole commands): "
        "go test ./...; git status; rm -rf /",
    )
    allowed, reason = decide("rm -rf /", repo, config)  # destructive stays refused
    assert not allowed and "root directory" in reason


def test_an_empty_command_is_refused(repo: Path) -> None:
    assert decide(" \n ", repo, {}) == (False, "the command is empty")


def test_a_failing_analysis_refuses_and_names_the_failure(repo: Path) -> None:
    def failing(path: str, base: str | None) -> str | None:
        raise ValueError(f"cannot look at {path}")

    reason = _analysed("touch x", str(repo), {}, failing)
    assert reason == "the policy could not analyse the command (ValueError: cannot look at x)"


def test_shell_code_is_read_eight_levels_deep_and_no_deeper(repo: Path) -> None:
    def nested(levels: int, code: str) -> str:
        return "eval " * levels + code

    assert decide(nested(8, "rm -rf ~"), repo, {})[1] == "recursive rm deletes the home directory"
    assert decide(nested(9, "ls"), repo, {}) == (
        False,
        "shell code is nested more than 8 levels deep",
    )
    assert decide("; ".join([nested(8, "ls")] * 3), repo, {})[0]  # one after another
    assert not decide(f"eval ls; eval ls; {nested(9, 'ls')}", repo, {})[0]


@pytest.mark.parametrize(
    ("command", "allowed"),
    [("echo x >&2", True), ("echo x >&-", True), ("echo x > 2", False), ("echo x >> -", False)],
)
def test_duplicated_descriptors_are_no_files(command: str, allowed: bool, repo: Path) -> None:
    assert decide(command, repo, {"protected_paths": ["2", "-"]})[0] is allowed


def test_an_empty_allowlist_leaves_any_program_allowed(repo: Path) -> None:
    assert decide("ls", repo, {"allowed_shell_commands": []})[0]


def test_policy_check_prints_the_decision(repo: Path, isolated_env: dict[str, str]) -> None:
    refused = run_tai("policy", "check", "rm -rf ~", cwd=repo, env=isolated_env)
    assert refused.returncode == 1
    assert refused.stdout == "refused: recursive rm deletes the home directory\n"
    allowed = run_tai("policy", "check", "go test ./...", cwd=repo, env=isolated_env)
    assert allowed.returncode == 0
    assert allowed.stdout.startswith("allowed: ")


def test_policy_check_takes_the_words_of_a_command(
    repo: Path, isolated_env: dict[str, str]
) -> None:
    """Unquoted, as a user types it: options are the command's, the words quoted back
    together as the shell reads them (an argument with a space stays one)."""
    refused = run_tai("policy", "check", "rm", "-rf", "/", cwd=repo, env=isolated_env)
    assert (refused.returncode, refused.stdout) == (
        1, "refused: recursive rm deletes the root directory\n")  # fmt: skip
    listed = run_tai("policy", "check", "ls", "-la", cwd=repo, env=isolated_env)
    assert listed.returncode == 0 and listed.stdout.startswith("allowed: ")
    config = Path(isolated_env["TAI_CONFIG_DIR"]) / "tai.toml"
    config.write_text("allowed_shell_commands = [\"grep 'a b' notes\"]\n")
    quoted = run_tai("policy", "check", "grep", "a b", "notes", cwd=repo, env=isolated_env)
    assert quoted.returncode == 0, quoted.stdout


def test_policy_check_reads_the_allowlist(repo: Path, isolated_env: dict[str, str]) -> None:
    config = Path(isolated_env["TAI_CONFIG_DIR"]) / "tai.toml"
    config.write_text('allowed_shell_commands = "make test"\n')
    assert run_tai("policy", "check", "make test", cwd=repo, env=isolated_env).returncode == 0
    other = run_tai("policy", "check", "make", cwd=repo, env=isolated_env)
    assert other.returncode == 1
    assert "not in allowed_shell_commands" in other.stdout


def test_refused_shell_blocks_never_run(host: PluginHost, repo: Path) -> None:
    body = "touch ran && rm -rf ~"
    block = Block(kind="shell", delimiter="W", params={}, body=body, line=1, start=0, end=0)
    kind = host.registry.block_kinds["shell"]
    result = host.pm.hook.tai_run_block(block=block, kind=kind, context=run_context(host, repo))
    assert not result.ok
    assert result.text == (
        f"Shell command rejected: {body}\n\nError: recursive rm deletes the home directory\n"
    )
    assert not (repo / "ran").exists()


def test_the_policy_answers_the_hook(host: PluginHost, repo: Path) -> None:
    answer = host.pm.hook.tai_shell_policy(command="rm -rf /", cwd=str(repo), ask=None)
    assert answer == (False, "recursive rm deletes the root directory")
