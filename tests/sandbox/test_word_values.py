"""The values the shell policy computes for words and small programs (tai_sandbox._escapes,
tai_sandbox._programs): backslash escapes, echo, printf and the decoders a command may pipe
through, mktemp's name.
A command that builds its text this way is judged by the text it builds; each value here
was checked against what bash and coreutils print."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tai_sandbox._escapes import ANSI_C, decode, decode_ansi_c
from tai_sandbox._programs import echo_output, filter_output, mktemp_output, printf_output


def bash(script: str, *args: str) -> str:
    """What bash prints running ``script`` with the positional parameters ``args``."""
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script, "sh", *args],
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, capture_output=True, check=True,
    )  # fmt: skip
    return done.stdout.decode()


#: Backslash escapes each reader of them reads its own way (every value a character
#: below U+0080 or a \u escape: bash prints a \x or octal escape as a byte).
ESCAPES = [
    r"a\nb", r"\t", r"\x41\x4a", r"\x4", r"\x414", r"\xZ", r"\u00e9", r"\u41", r"\U0001F600",
    r"\101", r"\0101", r"\01234", r"\1234", r"\7", r"\8", r"\0", r"\cA", r"x\cyz", r"\c",
    r"\q", "end\\", r"\\", r"\'", r"\"", r"\?", r"\e", r"\E", r"\a\b\f\v\r", r"end\x", r"\u",
]  # fmt: skip


@pytest.mark.parametrize("text", ESCAPES)
def test_escapes_are_read_as_bash_reads_them(text: str) -> None:
    if not text.endswith("\\") or text.endswith("\\\\"):  # $'…\' does not end
        assert decode_ansi_c(text) == bash(f"printf %s $'{text}'")
    assert echo_output(["-e", text]) == bash('echo -e "$1"', text)
    assert printf_output([text]) == bash('printf "$1"', text)
    assert printf_output(["%b", text]) == bash('printf %b "$1"', text)


@pytest.mark.parametrize(
    "args",
    [
        ["a", "b"], ["-n", "a"], ["-e", r"a\tb"], ["-ne", r"x\n"], ["-E", r"a\tb"],
        ["-x", "a"], ["-", "a"], ["-n", "-e", r"a\nb"], [], ["-e", "-E", r"\t"], ["-en", "x"],
        ["-e", r"a\cb", "c"], ["-n"], ["--", "a"], ["-nx", "a"],
    ],
)  # fmt: skip
def test_echo_prints_what_bash_prints(args: list[str]) -> None:
    assert echo_output(args) == bash('echo "$@"', *args)


@pytest.mark.parametrize(
    "args",
    [
        [r"a\tb"], ["%s", "x", "y"], [r"%s\n", "x"], [r"%s\n", "a", "b"],
        [r"%s-%b\n", "a", r"\x41", "c"], ["%b|", r"a\cb", "x"], [r"\x25s", "a"], ["%%s", "a"],
        ["x"], ["x", "extra"], ["%s"], ["%b%%", "1", "2"], ["--", "%s-", "a"], ["%s%s", "a"],
        ["%s%b%%", "a", "b"], ["%s", r"a\tb"],
    ],
)  # fmt: skip
def test_printf_prints_what_bash_prints(args: list[str]) -> None:
    assert printf_output(args) == bash('printf "$@"', *args)


@pytest.mark.parametrize(
    "args", [[], ["%d", "1"], ["%5s", "a"], ["%q", "a"], ["-v", "X", "%s"], ["-vX", "a"], ["%"]]
)
def test_printf_output_the_policy_does_not_claim_to_know(args: list[str]) -> None:
    assert printf_output(args) is None


@pytest.mark.parametrize(
    ("argv", "stdin", "output"),
    [
        (["echo", "hi"], None, "hi\n"),
        (["/bin/echo", "a"], None, "a\n"),
        (["printf", "%s-", "x", "y"], None, "x-y-"),
        (["printf", "%d", "1"], None, None),
        (["base64", "-d"], "cm0gLXJm\n", "rm -rf"),
        (["base64", "--decode"], "aGk=", "hi"),
        (["base64", "-D"], "aGk=", "hi"),
        (["base64"], "aGk=", None),
        (["base64", "-d"], "!!", ""),
        (["xxd", "-r", "-p"], "6869", "hi"),
        (["xxd", "-r", "-p"], "68 69\n", "hi"),
        (["xxd", "-r"], "6869", None),
        (["xxd", "-r", "-p"], "zz", None),
        (["rev"], "ab\ncd", "ba\ndc\n"),
        (["rev", "-x"], "ab", None),
        (["cat"], "x", "x"),
        (["cat", "f"], "x", None),
        (["cat"], None, None),
        (["tac"], "x", None),
    ],
)
def test_what_a_filter_prints(argv: list[str], stdin: str | None, output: str | None) -> None:
    assert filter_output(argv, stdin) == output


def coreutils_mktemp(args: list[str], tmpdir: str, cwd: Path) -> str | None:
    """What GNU mktemp prints for ``args`` (as a dry run), ``None`` when it fails."""
    env = {"PATH": "/usr/bin:/bin"} | ({"TMPDIR": tmpdir} if tmpdir else {})
    done = subprocess.run(
        ["mktemp", "-u", *args], env=env, cwd=cwd, capture_output=True, text=True, check=False
    )
    return done.stdout if done.returncode == 0 else None


def picked(name: str) -> str:
    """A pattern of the names mktemp may print for ``name``: its last run of X's (in its
    last component) is what mktemp picks."""
    last = list(re.finditer(r"X{3,}", name.rpartition("/")[2]))[-1]
    start = name.rindex("/") + 1 + last.start() if "/" in name else last.start()
    end = start + len(last[0])
    return f"{re.escape(name[:start])}[A-Za-z0-9]{{{end - start}}}{re.escape(name[end:])}"


@pytest.mark.parametrize(
    ("args", "tmpdir"),
    [
        ([], ""), ([], "/var/t/"), (["-d"], ""), (["-u", "-q"], "/e"),
        (["-p", "/x"], ""), (["-p/y"], ""), (["-dp/o"], ""), (["-p", ""], "/e"), (["-pt"], ""),
        (["-p"], ""), (["--tmpdir=/z"], ""), (["--tmpdir=/a=b", "x.XXX"], ""),
        (["--tmpdir", "x.XXX"], "/e"), (["--tmp=/o", "x.XXX"], ""), (["--tmpdir="], "/e"),
        (["-t", "a.XXX"], ""), (["-t", "a.XXX"], "/e"), (["-t", "-p", "/o", "a.XXX"], "/e"),
        (["-t", "-p", "/o", "a.XXX"], ""), (["-dt"], "/q"), (["-qtd", "x.XXX"], "/e"),
        (["-t", "a/b.XXX"], ""), (["dir/a.XXX"], ""), (["rel.XXX"], "/e"),
        (["-p", "/x", "dir/a.XXX"], ""), (["-p", "/x", "/abs.XXX"], ""),
        (["--suffix", ".c"], ""), (["--suffix=.c", "-p", "/o", "x.XXX"], ""),
        (["--suf", ".c", "x.XXX"], ""), (["--suffix=.c", "x.XXX.c"], ""), (["--suffix"], ""),
        (["x.XXX.c"], ""), (["x.XX"], ""), (["x.XXXXyXXX"], ""), (["a.XXX", "b.XXX"], ""),
        (["--", "-x.XXX"], ""), (["x.XXX", "-d"], ""), (["-"], ""), (["-k"], ""),
        (["--bogus"], ""), (["--d"], ""), (["--di"], ""), (["--quiet=x"], ""),
        (["--dry-run", "--directory", "--quiet", "a.XXX"], ""), (["--suffix=", "x.XXX.c"], ""),
        (["a.XXX/b"], ""), (["-X"], ""), ([], "/e/X"), (["-t", "a.XXX"], "/e/X"),
        (["-t", "a.XXX"], "/e "), (["-p", "/o/X", "a.XXX"], ""),
    ],
)  # fmt: skip
def test_the_name_mktemp_prints_is_the_one_coreutils_prints(
    args: list[str], tmpdir: str, tmp_path: Path
) -> None:
    real = coreutils_mktemp(args, tmpdir, tmp_path)
    name = mktemp_output(args, tmpdir)
    if real is None:
        assert name is None
    else:
        assert name is not None, real
        assert re.fullmatch(picked(name), real), (name, real)


def test_a_code_point_unicode_does_not_have_is_a_replacement_character() -> None:
    assert decode(r"\U0010FFFF\U00110000", ANSI_C) == ("\U0010ffff\ufffd", False)
