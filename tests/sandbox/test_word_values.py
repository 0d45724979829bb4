"""The values the shell policy computes for words and small programs (tai_sandbox._words):
ANSI-C strings, echo, printf and the decoders a command may pipe through, mktemp's name.
A command that builds its text this way is judged by the text it builds; each value here
was checked against what bash and coreutils print."""

from __future__ import annotations

import pytest

from tai_sandbox._words import Scope, _echo, _filter, _mktemp, decode_ansi_c


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
    assert _echo(args) == printed


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
    assert _filter(argv, stdin) == output


def scope(tmpdir: set[str] | None) -> Scope:
    values = {"TMPDIR": None if tmpdir is None else frozenset(tmpdir)}
    return Scope(values, None, ("/w",), {"HOME": "/home/u"})


@pytest.mark.parametrize(
    ("args", "tmpdir", "name"),
    [
        ([], {""}, "/tmp/tmp.XXXXXXXXXX\n"),
        ([], {"/var/t/"}, "/var/t/tmp.XXXXXXXXXX\n"),
        (["-d"], {""}, "/tmp/tmp.XXXXXXXXXX\n"),
        (["-p", "/x"], {""}, "/x/tmp.XXXXXXXXXX\n"),
        (["-p/y"], {""}, "/y/tmp.XXXXXXXXXX\n"),
        (["--tmpdir=/z"], {""}, "/z/tmp.XXXXXXXXXX\n"),
        (["-t", "a.XXX"], {""}, "/tmp/a.XXX\n"),
        (["-dt"], {"/q"}, "/q/tmp.XXXXXXXXXX\n"),
        (["dir/a.XXX"], {""}, "dir/a.XXX\n"),
        (["-p", "/x", "dir/a.XXX"], {""}, "/x/a.XXX\n"),
        (["--suffix", ".c"], {""}, "/tmp/tmp.XXXXXXXXXX\n"),
        (["-p"], {""}, "/tmp/tmp.XXXXXXXXXX\n"),
        ([], None, None),
        ([], {"/a", "/b"}, None),
    ],
)
def test_the_name_mktemp_prints(args: list[str], tmpdir: set[str] | None, name: str | None) -> None:
    assert _mktemp(args, scope(tmpdir)) == name
