"""What a newcomer's mistakes on the command line get back: one line that starts
``tai: error:``, the option or command as typed with the nearest names, the quotes a task
left unquoted needs, and the documented exit status (2 usage, 1 failure). A real ``tai``
subprocess each time."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tai_core import hookspecs

from .conftest import run_tai, tai_executable

USAGE = 2


#: The end of the line for a model tai does not know (the installed providers' built-ins:
#: the gemini plugin's).
UNKNOWN = (
    "not a configured generator (none configured), not PREFIX:MODEL of an installed provider, "
    "not a built-in name (flash, gemini, gemini-flash, gemini-pro, pro); see `tai plugins` for "
    "installed providers"
)

#: Every hook of tai, as ``tai plugins --hook`` lists them when a name is not near one.
HOOKS = ", ".join(sorted(name for name in dir(hookspecs) if name.startswith("tai_")))


@pytest.mark.parametrize(
    ("args", "line", "status"),
    [
        (
            ["-frobnicate"],
            "unknown option '-frobnicate'; see tai chat --help",
            USAGE,
        ),
        (
            ["-modle", "m", "chat", "hi"],
            "unknown option '-modle' (did you mean -model?); see tai chat --help",
            USAGE,
        ),
        (
            ["--modle=m", "chat", "hi"],
            "unknown option '--modle=m' (did you mean --model?); see tai chat --help",
            USAGE,
        ),
        (["pign"], "unknown command 'pign' (did you mean ping?); see tai --help", USAGE),
        (
            ["sessions", "rm", "x"],  # the shell's word
            "unknown command 'rm' (did you mean delete?); see tai sessions --help",
            USAGE,
        ),
        (
            ["chat", "fix", "the", "bug"],
            "unexpected 'the': the task is one argument, so quote it: tai chat \"fix the bug\"",
            USAGE,
        ),
        (
            ["fix", "the", "bug"],
            "unexpected 'fix': the task follows the word chat: tai chat \"fix the bug\"",
            USAGE,
        ),
        (
            ["plan", "add", "dark", "mode"],  # an agent command is a mode of tai ai
            "tai has no command 'plan': /plan is an agent command, a mode of the chat: "
            'tai ai -agent plan "add dark mode" (or /plan in tai ai)',
            USAGE,
        ),
        (
            ["init"],
            "tai has no command 'init': /init is an agent command, a mode of the chat: "
            "tai ai -agent init (or /init in tai ai)",
            USAGE,
        ),
        (
            ["-model", "m", "fix", "the", "bug"],  # the options typed are kept
            "unexpected 'fix': the task follows the word chat: tai -model m chat \"fix the bug\"",
            USAGE,
        ),
        (
            ["chta", "fix", "it"],  # the word chat misspelt
            "unexpected 'chta' (did you mean chat?): tai chat \"fix it\"",
            USAGE,
        ),
        (
            ["help"],  # not a task for the model
            "tai has no command 'help': tai --help lists the commands, tai COMMAND --help the "
            "options of each",
            USAGE,
        ),
        (
            ["next", "-max-loops", "2", "chat", "hi"],  # an option of another command
            "unknown option '-max-loops' (-max-loops is an option of tai chat); see tai next "
            "--help",
            USAGE,
        ),
        (
            ["undo", "3"],  # a number alone: the value of the option that takes one
            "unexpected '3' (did you mean -round 3?); see tai undo --help",
            USAGE,
        ),
        (
            ["next", "-model", "openai", "chat", "hi"],  # a provider, without its model
            "unknown model 'openai' (a provider: give the model after it, openai:MODEL): "
            + UNKNOWN,
            USAGE,
        ),
        (
            ["-aprove", "ask", "chat", "hi"],  # one of tai's own options, misspelt
            "unknown option '-aprove' (did you mean -approve? an option of tai itself, given "
            "before any command); see tai --help",
            USAGE,
        ),
        (
            ["plugns", "--json"],  # a misspelt command, then its option
            "unknown command 'plugns' (did you mean plugins?); see tai --help",
            USAGE,
        ),
        (
            ["next", "-model", "gpt-4o", "chat", "hi"],  # a model an installed provider knows
            f"unknown model 'gpt-4o' (did you mean 'openai:gpt-4o'?): {UNKNOWN}",
            USAGE,
        ),
        (
            ["next", "-model", "glm-4.6", "chat", "hi"],  # known to two: both, typed to run
            "unknown model 'glm-4.6' (did you mean 'opencode-go:glm-4.6' or 'zhipu:glm-4.6'?): "
            + UNKNOWN,
            USAGE,
        ),
        (
            ["next", "chat", "a", "b"],
            "unexpected 'b': the task is one argument, so quote it: tai next chat \"a b\"",
            USAGE,
        ),
        (
            ["-model", "chat", "fix the bug"],  # the model's name forgotten
            "-model took the word chat as its value: give it one first: tai -model VALUE "
            'chat "fix the bug"',
            USAGE,
        ),
        (
            ["next", "-model", "chat", "a"],
            "-model took the word chat as its value: give it one first: tai next -model VALUE "
            'chat "a"',
            USAGE,
        ),
        (
            ["parse", "no-such-reply"],  # an argument, named as the help names it
            "invalid value for REPLY: 'no-such-reply': No such file or directory; "
            "see tai parse --help",
            USAGE,
        ),
        (["ping", "-bogus"], "unknown option '-bogus'; see tai ping --help", USAGE),
        (  # click reads a cluster of short flags: -h, then -l, which is unknown
            ["chat", "hi", "-hlep"],
            "unknown option '-hlep' (did you mean -help?); see tai chat --help",
            USAGE,
        ),
        (
            ["chat", "hi", "--helpp"],  # the help's spellings are options too
            "unknown option '--helpp' (did you mean --help or --shell?); see tai chat --help",
            USAGE,
        ),
        (
            ["--approve", "nevr", "chat", "x"],  # tai's own options take both spellings
            "invalid value for -approve: 'nevr' is not one of 'auto', 'ask', 'never'; "
            "see tai --help",
            USAGE,
        ),
        (
            ["-model", "m", "-approve", "never", "chat", "x"],  # tai's own, after the model
            "'-approve' is an option of tai itself, not of a command: give it before the "
            'command and its options (tai -approve … -model … chat "…"); see tai --help',
            USAGE,
        ),
        (
            ["next", "-p", "no:shell", "chat", "x"],  # the same, after a named command
            "'-p' is an option of tai itself, not of a command: give it before the "
            "command and its options (tai -p … next …); see tai --help",
            USAGE,
        ),
        (
            ["-max-loops", "0", "chat", "x"],  # click's line, with tai's spelling and case
            "invalid value for -max-loops: 0 is not from 1 to 100; see tai chat --help",
            USAGE,
        ),
        (
            ["plugins", "--hook", "tai_run_blok"],  # an empty table would say "no plugin"
            "unknown hook 'tai_run_blok' (did you mean tai_run_block?); see tai plugins --help",
            USAGE,
        ),
        (
            ["-max-loops", "many", "chat", "x"],
            "invalid value for -max-loops: 'many' is not a whole number; see tai chat --help",
            USAGE,
        ),
        (
            ["undo", "-round", "0"],
            "invalid value for -round: 0 is not 1 or more; see tai undo --help",
            USAGE,
        ),
        (
            ["plugins", "--hook", "--json"],  # click takes the next option as the value
            "-hook takes the name of a hook, and --json is an option: name the hook first "
            "(tai plugins -hook tai_run_block -json); see tai plugins --help",
            USAGE,
        ),
        (
            ["plugins", "--hook", "bogus"],  # nothing near: every name, to pick from
            f"unknown hook 'bogus' (the hooks: {HOOKS}); see tai plugins --help",
            USAGE,
        ),
        (  # click names no command here: the help pointer is found from the words
            ["plugins", "--hook"],
            "option '--hook' requires an argument; see tai plugins --help",
            USAGE,
        ),
        (
            ["-p", "no:shell", "next", "-model"],
            "option '-model' requires an argument; see tai next --help",
            USAGE,
        ),
        (["-model"], "option '-model' requires an argument; see tai chat --help", USAGE),
        (
            ["policy", "chek", "ls"],
            "unknown command 'chek' (did you mean check?); see tai policy --help",
            USAGE,
        ),
        (
            ["next", "-model", "nosuch", "chat", "hi"],
            f"unknown model 'nosuch': {UNKNOWN}",
            USAGE,
        ),
        (
            ["next", "-model", "opnai:gpt-4o", "chat", "hi"],  # a provider's prefix misspelt
            f"unknown model 'opnai:gpt-4o' (did you mean 'openai:gpt-4o'?): {UNKNOWN}",
            USAGE,
        ),
        (
            ["web", "-model", "nosuch:x"],  # refused before serving, not at each session
            f"unknown model 'nosuch:x': {UNKNOWN}",
            USAGE,
        ),
    ],
)
def test_a_mistake_gets_one_line_that_helps(
    args: list[str], line: str, status: int, tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    env = {**isolated_env, "TAI_NO_SANDBOX": "1"}
    result = run_tai(*args, cwd=tmp_path, env=env)
    assert (result.stderr, result.returncode) == (f"tai: error: {line}\n", status)
    assert result.stdout == ""


@pytest.mark.parametrize(("group", "commands"), [("policy", "check"), ("sandbox", "paths, run")])
def test_a_group_without_its_command_shows_its_help_and_says_why(
    group: str, commands: str, tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    result = run_tai(group, cwd=tmp_path, env=isolated_env)
    assert result.returncode == USAGE and result.stdout == ""
    assert result.stderr.startswith(f"Usage: tai {group} [OPTIONS] COMMAND [ARGS]...\n")
    assert result.stderr.endswith(
        f"\ntai: error: tai {group} needs a command: {commands}; see tai {group} --help\n"
    )


def test_tai_alone_shows_its_help_and_asks_for_a_task_or_a_command(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    result = run_tai(cwd=tmp_path, env=isolated_env)
    assert result.returncode == USAGE and result.stdout == ""
    assert result.stderr.startswith("Usage: tai [OPTIONS] COMMAND [ARGS]...\n")
    last = result.stderr.splitlines()[-1]
    assert last.startswith('tai: error: tai needs a task (tai chat "…") or a command: ai, ')
    assert last.endswith("; see tai --help")


def test_every_provider_type_names_a_model(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    env = {**isolated_env, "TAI_NO_SANDBOX": "1"}
    result = run_tai("next", "-model", "openai:gpt-4o", "chat", "hi", cwd=tmp_path, env=env)
    assert result.returncode == USAGE  # a set-up tai cannot use
    assert result.stderr.startswith("tai: error: model 'openai:gpt-4o' (openai) has no API key")


def test_the_default_command_has_the_help_of_tai_itself(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    for spelling in ("--help", "-help", "-h"):  # every spelling, as for the other commands
        implied = run_tai("chat", spelling, cwd=tmp_path, env=isolated_env)
        assert implied.returncode == 0, implied.stderr
        assert implied.stdout.startswith('Usage: tai [OPTIONS] chat "TASK"\n')
    named = run_tai("code", "--help", cwd=tmp_path, env=isolated_env)
    assert named.stdout.startswith('Usage: tai code [OPTIONS] chat "TASK"\n')


def test_the_single_dash_spellings_of_plugins_options(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    listed = run_tai("plugins", "-json", "-hook", "tai_path_policy", cwd=tmp_path,
                     env=isolated_env)  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    assert [p["name"] for p in json.loads(listed.stdout)["plugins"]] == ["sandbox"]


def test_a_group_alone_shows_its_help(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    result = run_tai("sandbox", cwd=tmp_path, env=isolated_env)
    assert result.returncode == USAGE
    assert result.stderr.startswith("Usage: tai sandbox [OPTIONS] COMMAND [ARGS]...\n")


def test_click_s_own_messages_end_before_the_help_pointer(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    result = run_tai("sessions", "show", cwd=tmp_path, env=isolated_env)
    assert result.returncode == 2
    assert result.stderr == "tai: error: missing argument 'ID'; see tai sessions show --help\n"


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda path: path.write_text("x = [1,\n"), "invalid TOML"),
        (lambda path: path.mkdir(), "cannot be read: Is a directory"),
        (lambda path: path.symlink_to(path), "cannot be read: Too many levels of symbolic links"),
        (lambda path: path.symlink_to(path.with_name("gone")), "a link that leads nowhere"),
    ],
)
def test_a_configuration_file_that_cannot_be_read_is_named_and_help_still_works(
    make: Callable[[Path], object], reason: str, tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """Anything named tai.toml counts (a directory was ignored, a link looping on itself
    failed later as the sandbox's error); --help and --version only warn of it."""
    config = tmp_path / "tai.toml"
    make(config)
    env = {**isolated_env, "TAI_NO_SANDBOX": "1"}
    run = run_tai("-model", "m", "chat", "hi", cwd=tmp_path, env=env)
    assert run.returncode == USAGE
    assert run.stderr.startswith(f"tai: error: {config}: ") and reason in run.stderr
    for flag in ("--help", "--version"):
        shown = run_tai(flag, cwd=tmp_path, env=env)
        assert shown.returncode == 0 and shown.stdout, shown.stderr
        assert shown.stderr.startswith(f"tai: warning: {config}: ") and reason in shown.stderr


@pytest.mark.slow
def test_text_that_is_not_utf8_is_refused_before_anything_is_sent(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """A task or prompt in another encoding would reach the model as lone surrogates, which
    no API takes (retried three times, then a codec error); it is named instead."""
    (tmp_path / "one.replay").write_text("@@@ reply\nok\n")

    def run(
        command: str, *args: str | bytes, stdin: bytes = b""
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [tai_executable(), command, "-model", "replay:one.replay", *args], cwd=tmp_path,
            env=isolated_env, input=stdin, capture_output=True, timeout=60,
        )  # fmt: skip

    argument = run("next", "chat", b"caf\xe9")
    assert argument.returncode == 2
    assert argument.stderr.decode().startswith(
        "tai: error: the task: line 1: not UTF-8 text (byte 0xe9); give it in UTF-8"
    )
    piped = run("next", "-stdin", "chat", "x", stdin=b"fine\ncaf\xe9")
    assert piped.returncode == 2
    assert b"standard input: line 2: not UTF-8 text (byte 0xe9)" in piped.stderr
    chat = run("ai", "-cli", stdin=b"caf\xe9\nfine\n")
    assert chat.returncode == 1 and chat.stdout == b"ok\n"  # only "fine" was sent
    assert b"tai: error: the prompt: line 1: not UTF-8 text (byte 0xe9); it is not sent\n" in (
        chat.stderr
    )


def test_parse_on_a_terminal_says_it_reads_the_reply_from_it(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    import os
    import pty

    terminal, side = pty.openpty()
    process = subprocess.Popen(
        [tai_executable(), "parse"], cwd=tmp_path, env=isolated_env, stdin=side,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    os.close(side)
    os.write(terminal, b"no blocks here\n\x04")  # Ctrl-D at the start of a line: the end
    out, err = process.communicate(timeout=60)
    os.close(terminal)
    assert process.returncode == 0, err
    assert err == (
        "tai: reading the reply from the terminal; end it with Ctrl-D (tai parse FILE reads "
        "a file)\n"
    )
    assert out == "0 block(s), 0 problem(s)\n"


#: Runs ``tai`` in this process, saying on fd 2 whether it prepared the run's isolation
#: (``_main._isolate``: the session's modules imported, the sandbox entered) and whether the
#: session module was imported by the time it ended.
ISOLATION_PROBE = """
import atexit, os, sys
from tai_core.cli import _main
def isolate(*args, **kwargs):
    os.write(2, b"ISOLATING\\n")
    return original(*args, **kwargs)
original, _main._isolate = _main._isolate, isolate
session = "tai_core.commands._session"
atexit.register(lambda: os.write(2, b"SESSION %d\\n" % (session in sys.modules)))
_main.main(sys.argv[1:])
"""


@pytest.mark.parametrize(
    ("args", "isolated"),
    [
        (["-frobnicate"], False),
        (["chat", "fix", "the", "bug"], False),
        (["next", "-frob", "chat", "x"], False),
        (["next", "chat", "x", "y"], False),
        (["-model", "nosuch", "chat", "x"], True),  # read: the model is resolved in the run
    ],
)
def test_a_command_line_tai_cannot_read_ends_before_the_run_is_isolated(
    args: list[str], isolated: bool, tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    import sys

    env = {**isolated_env, "TAI_NO_SANDBOX": "1"}
    result = subprocess.run([sys.executable, "-c", ISOLATION_PROBE, *args], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert result.returncode == USAGE, result.stderr
    assert ("ISOLATING\n" in result.stderr) is isolated
    assert f"SESSION {int(isolated)}\n" in result.stderr
