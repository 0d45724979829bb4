"""The values the shell policy computes for words and small programs (tai_sandbox._words):
ANSI-C strings, echo, printf and the decoders a command may pipe through, mktemp's name.
A command that builds its text this way is judged by the text it builds; each value here
was checked against what bash and coreutils print."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tai_sandbox._programs import echo_output, filter_output, mktemp_output
from tai_sandbox._syntax import decode_ansi_c


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (r"a\nb", "a\nb"), (r"\t", "\t"), (r"\x41\x4a", "AJ"), (r"\x4", "\x04"),
        (r"\x414", "A4"), (r"\xZ", r"\xZ"), (r"\u00e9", "é"), (r"\U0001F600", "😀"),
        (r"\101", "A"), (r"\0101", "\x081"), (r"\7", "\x07"), (r"\cA", "\x01"),
        (r"\c", r"\c"), (r"\q", r"\q"), ("end\\", "end\\"), (r"\\", "\\"), (r"\'", "'"),
        (r"\"", '"'), (r"\e", "\x1b"), (r"\a\b\f\v\r", "\x07\x08\x0c\x0b\r"),
    ],
)  # fmt: skip
def test_ansi_c_strings(text: str, value: str) -> None:
    assert decode_ansi_c(text) == value


@pytest.mark.parametrize(
    ("args", "printed"),
    [
        (["a", "b"], "a b\n"), (["-n", "a"], "a"), (["-e", r"a\tb"], "a\tb\n"),
        (["-ne", r"x\n"], "x\n"), (["-E", r"a\tb"], "a\\tb\n"), (["-x", "a"], "-x a\n"),
        (["-", "a"], "- a\n"), (["-n", "-e", r"a\nb"], "a\nb"), ([], "\n"),
    ],
)  # fmt: skip
def test_echo(args: list[str], printed: str) -> None:
    assert echo_output(args) == printed


@pytest.mark.parametrize(
    ("argv", "stdin", "output"),
    [
        (["echo", "hi"], None, "hi\n"),
        (["/bin/echo", "a"], None, "a\n"),
        (["printf", r"a\tb"], None, "a\tb"),
        (["printf", "%s", "x", "y"], None, "xy"),
        (["printf", r"%s\n", "x"], None, "x\n"),
        (["printf", "%d", "1"], None, None),
        (["printf"], None, None),
        (["base64", "-d"], "cm0gLXJm\n", "rm -rf"),
        (["base64", "--decode"], "aGk=", "hi"),
        (["base64", "-D"], "aGk=", "hi"),
        (["base64"], "aGk=", None),
        (["base64", "-d"], "!!", ""),
        (["xxd", "-r", "-p"], "6869", "hi"),
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
        (["--dry-run", "--directory", "--quiet", "a.XXX"], ""),
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
