"""What a script's variables can hold, as the shell policy sees them (tai_sandbox._scope):
values that come from other assignments and other directory changes, ``~`` after ``HOME``
is assigned, and what the policy cannot see through (``source``, ``eval`` of unknown text,
namerefs, ``set --``, ``shift``, ``printf -v``) left unknown rather than taken as empty.
Each refused command deletes what its reason names when bash runs it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_sandbox._scope import ROUNDS, script_scope
from tai_sandbox._syntax import parse
from tai_sandbox._words import Scope
from tai_sandbox.policy import decide

ROOT = "recursive rm deletes the root directory"
ETC = "recursive rm deletes the system directory /etc"
UNKNOWN = "recursive rm deletes …, a path only known when the command runs"


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        # a value taken from another assignment, in any order
        ("Y=/; X=$Y; rm -rf $X", ROOT),
        ('X=$Y; Y=/; rm -rf "$X"', ROOT),
        ("A=/; B=$A; C=$B; D=$C; rm -rf $D", ROOT),
        ("X=/etc; cd $X; rm -rf ssh", "recursive rm deletes the system directory /etc/ssh"),
        ("X=/; cd $X; rm -rf etc", ETC),
        # a builtin is known by the word's value, however it is quoted
        ("\\cd /etc; rm -rf ssh", "recursive rm deletes the system directory /etc/ssh"),
        ('"cd" /etc; rm -rf ssh', "recursive rm deletes the system directory /etc/ssh"),
        ("\\eval X=/; rm -rf $X", ROOT),
        ("'set' -- /; rm -rf $1", UNKNOWN),
        (
            'read -r "HOME" <<< /; rm -rf ~/etc',
            "recursive rm deletes …/etc, a path only known when the command runs",
        ),
        # a relative cd looks in $CDPATH first
        ("CDPATH=/; cd etc; rm -rf ssh", "recursive rm deletes the system directory /etc/ssh"),
        ("CDPATH=/:/usr cd lib && rm -rf x", "recursive rm deletes the system directory /lib/x"),
        (
            "read CDPATH; cd etc; rm -rf x",
            "recursive rm deletes x, relative to a directory only known when the command runs",
        ),
        # ~ and cd are $HOME as the script leaves it
        ("HOME=/; rm -rf ~/etc", ETC),
        ("export HOME=/; rm -rf ~/etc", ETC),
        ("HOME=/; cd; rm -rf etc", ETC),
        (
            "read -r HOME <<< /; rm -rf ~/etc",
            "recursive rm deletes …/etc, a path only known when the command runs",
        ),
        # eval's assignments are the script's
        ("eval X=/; rm -rf $X", ROOT),
        ("eval 'X=/'; rm -rf $X", ROOT),
        ("eval 'eval X=/'; rm -rf $X", ROOT),
        ("eval HOME=/; rm -rf ~/etc", ETC),
        ("eval cd /; rm -rf etc", ETC),
        # what the policy cannot see through
        ('eval "$(cat f)"; rm -rf "$X"', "eval runs text only known when the command runs"),
        ("echo X=/ > e; . ./e; rm -rf $X", UNKNOWN),
        (
            "source ./e; rm -rf ~/etc",
            "recursive rm deletes …/etc, a path only known when the command runs",
        ),
        ("declare -n X=HOME; rm -rf $X", UNKNOWN),
        ("local -rn X; X=HOME; rm -rf $X", UNKNOWN),
        ("typeset -n X=HOME; rm -rf $X", UNKNOWN),
        ("declare +n X=/; rm -rf $X", ROOT),  # no longer a nameref: X is /
        ("export -n X=/; rm -rf $X", ROOT),  # export -n un-exports: X is /
        ("printf -vX /; rm -rf $X", UNKNOWN),
        ("printf -v X /; rm -rf $X", UNKNOWN),
        (
            'printf -v X; rm -rf "$X"/',
            "recursive rm deletes …/, a path only known when the command runs",
        ),
        ('printf -v; rm -rf "$XXXX"/', ROOT),  # -v without a name assigns nothing
        ("set -- /; rm -rf $1", UNKNOWN),
        ("set / x; rm -rf $1", UNKNOWN),
        ("set -e -- /; rm -rf $1", UNKNOWN),
        ("set /; rm -rf $1", UNKNOWN),
        (
            """bash -c 'set -e --; rm -rf "$1"/' sh build""",
            "recursive rm deletes …/, a path only known when the command runs",
        ),
        ("set -o errexit /; rm -rf $1", UNKNOWN),
        (
            "set -- -x; rm -rf $1/",
            "recursive rm deletes …/, a path only known when the command runs",
        ),
        (
            "bash -c 'set --; rm -rf \"$1\"/' sh build",
            "recursive rm deletes …/, a path only known when the command runs",
        ),
        ("bash -c 'shift; rm -rf \"$1\"' sh build /", UNKNOWN),
        ("X=/; X=$X.; rm -rf $X", UNKNOWN),  # still growing after the last round
        # a value the environment may give before the script sets it counts
        ("rm -rf $X/out; X=build", "recursive rm deletes the system directory /out"),
        ("f() { rm -rf $X/out; }; X=build; f", "recursive rm deletes the system directory /out"),
        ("true && X=build; rm -rf $X/out", "recursive rm deletes the system directory /out"),
        ("eval 'rm -rf $X/out'; X=build", "recursive rm deletes the system directory /out"),
        ("# reads X\nX=build; rm -rf $X/out", "recursive rm deletes the system directory /out"),
        ("X=build; if c; then X=/; fi; rm -rf $X", ROOT),
        # (HOME is read by ~ and cd, and a variable of the environment by what runs)
        ("rm -rf ~/u/../..; HOME=/tmp/h", "recursive rm deletes the home directory (/home)"),
        (
            "for d in a b; do cd $d; done; rm -rf x",
            "recursive rm deletes x, relative to a directory only known when the command runs",
        ),
        (
            "for i in 1; do cd /etc; done; rm -rf ssh",
            "recursive rm deletes the system directory /etc/ssh",
        ),
    ],
)
def test_what_a_script_assigns_is_seen(command: str, reason: str, repo: Path) -> None:
    assert decide(command, repo, {}, {"HOME": "/home/alice"}) == (False, reason)


def test_a_variable_of_the_environment_keeps_its_value_before_the_script_sets_it(
    repo: Path,
) -> None:
    # a program run before the assignment may read it (it is exported): it still counts
    environ = {"HOME": "/home/alice", "OUT": "/"}
    refused = (False, "recursive rm deletes the system directory /x")
    assert decide("OUT=build; rm -rf $OUT/x", repo, {}, environ) == refused
    assert decide("OUT=build; rm -rf $OUT/x", repo, {}, {"HOME": "/home/alice"})[0]


@pytest.mark.parametrize(
    "command",
    [
        "set -e; rm -rf build",
        "set -euo pipefail; rm -rf build",
        "set -o errexit +o nounset; rm -rf build",
        "bash -c 'set -e; set -euo pipefail; set -o errexit +o nounset; rm -rf \"$1\"' sh x",
        "bash -c 'set -; rm -rf \"$1\"' sh build",
        "bash -c 'rm -rf \"$1\"' sh build",
        "export -n X=/etc; rm -rf build",
        "printf '%s' -v x; rm -rf \"$x\"",
        'printf -- -vx; rm -rf "$x"',
        "printf -v; rm -rf build",
        "X=build; Y=$X; rm -rf $Y",
        # set before anything can read it: the environment's value counts nowhere
        "X=build; rm -rf $X/out",
        "X=build; Y=$X/out; rm -rf $Y",
        'export OUT=dist; rm -rf "$OUT"/assets',
        "bash -c 'X=b; rm -rf $X/out'",
        "cd build; cd out; rm -rf tmp",
        "CDPATH=/; cd ./build; rm -rf tmp",
        "HOME=/home/alice/sandbox; rm -rf ~/cache",
        'eval "$UNSET_HERE"; rm -rf build',
    ],
)
def test_ordinary_scripts_are_allowed(command: str, repo: Path) -> None:
    allowed, reason = decide(command, repo, {}, {"HOME": "/home/alice"})
    assert allowed, reason


def scope_of(text: str) -> Scope:
    root, source = parse(text)
    return script_scope(root, source, Scope({}, ("sh",), ("/w",), {"HOME": "/h"}))


def test_a_value_that_keeps_growing_is_given_up_after_the_last_round() -> None:
    # a chain of ROUNDS - 2 assignments is followed to its end (a round for each, and one
    # that changes nothing); a value that grows in every round is only known at run time
    chain = "; ".join(f"V{i + 1}=$V{i}" for i in range(ROUNDS - 2))
    scope = scope_of(f"V0=/; {chain}; X=a; X=$X.")
    assert scope.values(f"V{ROUNDS - 2}") == frozenset({"/"})
    assert scope.values("X") is None


def test_a_relative_cd_is_taken_from_where_an_earlier_cd_leads() -> None:
    assert scope_of("cd /etc; cd ssh; X=$PWD").dirs == ("/w", "/etc", "/w/ssh", "/etc/ssh")
    assert scope_of("cd a; cd ../b").dirs == ("/w", "/w/a", "/b", "/w/b")
    assert scope_of("f() { cd a; }; cd /x").dirs == ("/w", None, "/x")
    assert scope_of("HOME=/u; cd").dirs == ("/w", "/h", "/u")  # cd reads HOME by itself


def test_home_comes_from_the_user_when_the_environment_has_none(repo: Path) -> None:
    home = str(Path.home())
    assert decide("rm -rf ~", repo, {}, {"PATH": "/usr/bin:/bin"}) == (
        False,
        "recursive rm deletes the home directory",
    )
    assert scope_of_environment({"PATH": "/bin"}).values("HOME") == frozenset({home})


def scope_of_environment(environ: dict[str, str]) -> Scope:
    return Scope({}, ("sh",), ("/w",), environ)
