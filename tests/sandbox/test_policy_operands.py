"""Operands as the programs read them: which command of a pipeline reads its input as code
(an interpreter's script after its options, ``-`` and ``/dev/stdin`` followed by the
script's own arguments; the command in a shell's ``-c`` code; ``source``), the name a
download is saved as when its URL has no path, the long options of ``watch``, and where a
``cd`` leads with ``CDPATH``.

Where a program can be run here, the test runs it too: ``python3 - x`` really runs the code
on its input, ``python3 tool.py`` really does not, so the policy's reading is the
program's."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .policy_cases import ALLOWED, check, decision

PYTHON_PAYLOAD = "import shutil; shutil.rmtree('/etc')"
PYTHON_REFUSED = "refused: the python code's shutil.rmtree deletes the system directory /etc"
HOME_REFUSED = "refused: recursive rm deletes the home directory"


def _ran(command: str, stdin: str, cwd: Path) -> str:
    """What ``command`` prints with ``stdin`` on its input, run by the shell in ``cwd``."""
    done = subprocess.run(
        command, shell=True, input=stdin, capture_output=True, text=True, cwd=cwd, check=False
    )
    return done.stdout


@pytest.fixture(scope="module")
def tool(repo: Path) -> Path:
    """A script of the repository's own that prints what it was given."""
    script = repo / "tool.py"
    script.write_text("import sys\nprint('tool', sys.argv[1:])\n", encoding="utf-8")
    return script


# -- interpreters: the script is the first operand after the options ------------------------

READS_ITS_INPUT = [
    "python3",
    "python3 -",
    "python3 - x",
    "python3 /dev/stdin x",
    "python3 -W ignore",
    "python3 -Wignore -",
    "python3 -X dev - a",
    "python3 -u -B -",
]

RUNS_A_SCRIPT_OR_ITS_ARGUMENTS = [
    "python3 tool.py",
    "python3 -u tool.py -",
    "python3 -W ignore tool.py /dev/stdin",
    "python3 -c 'import sys; sys.stdin.read()'",
    "python3 -m json.tool",
]


@pytest.mark.parametrize("command", READS_ITS_INPUT)
def test_code_on_an_interpreter_s_input_is_checked(command: str, repo: Path, tool: Path) -> None:
    assert _ran(command, "print('ran from input')", repo) == "ran from input\n"
    assert decision(f'echo "{PYTHON_PAYLOAD}" | {command}', repo) == PYTHON_REFUSED


@pytest.mark.parametrize("command", RUNS_A_SCRIPT_OR_ITS_ARGUMENTS)
def test_input_an_interpreter_reads_as_data_is_not_code(
    command: str, repo: Path, tool: Path
) -> None:
    assert "ran from input" not in _ran(command, "print('ran from input')", repo)
    assert decision(f'echo "{PYTHON_PAYLOAD}" | {command}', repo) == ALLOWED


def test_perl_reads_its_program_from_input_before_the_script_s_arguments(repo: Path) -> None:
    assert _ran("perl - x", 'print "ran from input\\n"', repo) == "ran from input\n"
    assert decision("echo 'system(\"rm -rf ~\")' | perl - x", repo) == HOME_REFUSED


# -- the command in a shell's -c code that reads the shell's input ----------------------------


def test_the_reader_in_a_shell_s_code_is_a_command_named_as_written(repo: Path) -> None:
    assert _ran("sh -c 'bash=1; echo done'", "echo ran", repo) == "done\n"
    assert _ran("sh -c '\"bash\"'", "echo ran", repo) == "ran\n"
    check(
        [
            ("echo 'rm -rf ~' | sh -c 'bash=1; echo done'", ALLOWED),  # an assignment
            ("echo 'rm -rf ~' | sh -c '\"bash\"'", HOME_REFUSED),  # quotes go, bash stays
            ("echo 'rm -rf ~' | sh -c bashX", ALLOWED),  # a name that starts like one
            ("echo 'rm -rf ~' | sh -c cat", ALLOWED),  # code that reads input as data
            ("echo 'rm -rf ~' | sh bash", ALLOWED),  # sh runs the script file named bash
        ],
        repo,
    )


def test_source_reads_its_input_only_when_it_sources_it(repo: Path) -> None:
    """``source FILE ARGS``: ``ARGS`` are the file's parameters, ``/dev/stdin`` among them
    too; only ``source /dev/stdin`` runs the input."""
    check(
        [
            ("echo 'rm -rf ~' | . ./env.sh", ALLOWED),
            ("echo 'rm -rf ~' | source ./env.sh /dev/stdin", ALLOWED),
        ],
        repo,
    )


# -- downloads, watch ---------------------------------------------------------------------------


def test_a_url_without_a_path_is_saved_under_no_name_of_its_host(repo: Path) -> None:
    """wget saves ``https://example.com`` as ``index.html``; curl ``-O`` saves nothing
    (no file name in the URL); ``://`` later in the path is part of the path."""
    downloaded = "refused: it runs <repo>/{}, which it downloads: code nobody has read"
    check(
        [
            ("wget https://example.com && sh example.com", ALLOWED),
            ("wget https://example.com && sh index.html", downloaded.format("index.html")),
            ("curl -O https://example.com && sh example.com", ALLOWED),
            ("wget 'https://h/x://run.sh' && sh run.sh", downloaded.format("run.sh")),
            ("curl -O 'https://h/x://run.sh' && sh run.sh", downloaded.format("run.sh")),
        ],
        repo,
    )


def test_a_download_s_name_given_with_an_equals_sign_or_by_wget2(repo: Path) -> None:
    downloaded = "refused: it runs <repo>/run.sh, which it downloads: code nobody has read"
    check(
        [
            ("curl --output=run.sh https://h/x && sh run.sh", downloaded),
            ("wget --output-document=run.sh https://h/x && sh run.sh", downloaded),
            ("wget2 https://h/run.sh && sh run.sh", downloaded),
            ("wget2 -O run.sh https://h/x && sh run.sh", downloaded),
            ("curl --remote-name-all https://h/run.sh && sh run.sh", downloaded),
            ("curl -O https://h/run.sh && sh run.sh", downloaded),
            ("curl -sO https://h/run.sh && sh run.sh", downloaded),
            # curl's -P is its FTP port, not wget's directory prefix
            ("curl -P - -O https://h/run.sh && sh run.sh", downloaded),
        ],
        repo,
    )


@pytest.mark.parametrize("option", ["--chgexit", "--errexit", "--chg", "-g"])
def test_watch_s_long_options_holding_an_x_are_not_exec(option: str, repo: Path) -> None:
    """``watch --chgexit CMD`` runs ``CMD`` through a shell; only ``-x``/``--exec`` runs it
    as words (a letter x inside a long option's name is no ``-x``)."""
    assert decision(f"watch {option} 'rm -rf ~'", repo) == HOME_REFUSED


# -- cd and CDPATH ------------------------------------------------------------------------------


def test_cdpath_serves_only_a_relative_cd_that_names_no_dot(repo: Path) -> None:
    unknown = (
        "refused: recursive rm deletes x, relative to a directory only known when the command runs"
    )
    check(
        [
            ("CDPATH=/; cd etc; rm -rf ssh", "refused: recursive rm deletes the system directory /etc/ssh"),  # noqa: E501
            ("CDPATH=/; cd ./etc; rm -rf ssh", ALLOWED),
            ("CDPATH=/; cd ../etc; rm -rf ssh", ALLOWED),
            ("CDPATH=/; popd etc; rm -rf ssh", ALLOWED),  # popd takes no directory
            ("CDPATH=$(pwd); cd /opt; rm -rf x", "refused: recursive rm deletes the system directory /opt/x"),  # noqa: E501
            ("CDPATH=$(pwd); cd opt; rm -rf x", unknown),  # was a crash on the marker
            # a relative CDPATH entry is taken from where the script is
            ("CDPATH=build; cd out; rm -rf x", ALLOWED),
            ("cd /; CDPATH=etc; cd ssh; rm -rf x", "refused: recursive rm deletes the system directory /x"),  # noqa: E501
        ],
        repo,
    )  # fmt: skip


def test_a_cd_in_a_loop_still_leads_to_an_absolute_directory(repo: Path) -> None:
    """In a loop, a relative ``cd`` leads somewhere only the run knows; an absolute one
    after it on the same line still leads where it says."""
    command = f"for d in a; do cd -P {repo}/.git; done; echo x > hooks/pre-commit"
    assert decision(command, repo).startswith(
        "refused: a redirection would change a protected path: <repo>/.git/hooks/pre-commit"
    )


# -- a variable the script sets at its top -----------------------------------------------------


def test_a_variable_set_first_holds_only_its_value(repo: Path) -> None:
    """The script's text is searched for earlier mentions whatever bytes it holds (one that
    is no UTF-8: a file name); an array is a value only the run knows (not yet modelled)."""
    check(
        [
            ("echo \udcff; X=build; rm -rf $X/out", ALLOWED),
            # an array's value is not its text: $X is its first element, not "(/etc)"
            (
                "X=(/etc); rm -rf $X",
                "refused: recursive rm deletes …, a path only known when the command runs",
            ),
        ],
        repo,
    )


# -- chmod's modes that look like options ---------------------------------------------------


def test_chmod_reads_a_mode_that_starts_with_a_dash(repo: Path, tmp_path: Path) -> None:
    """GNU chmod takes ``-w``, ``-x``, ``-X``, ``-Rw`` as the mode (``chmod -R -w DIR``
    takes write permission away under DIR), so the operands after it are all files."""
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    subprocess.run(["chmod", "-R", "-w", str(tree)], check=True)
    assert not (tree / "sub").stat().st_mode & 0o222
    subprocess.run(["chmod", "-R", "u+w", str(tree)], check=True)
    changes = (
        "refused: chmod -R changes {} (the root, the home or a parent of the working directory)"
    )
    check(
        [
            ("chmod -R -x /", changes.format("/")),
            ("chmod -R -X /", changes.format("/")),
            ("chmod -R -w ~", changes.format("/home/u")),
            ("chmod -w -R ~", changes.format("/home/u")),
            ("chmod -Rw ~", changes.format("/home/u")),
            ("chmod -R -v u+w ~", changes.format("/home/u")),
            ("chmod -R -w build", ALLOWED),
            ("chmod -w notes.txt", ALLOWED),
        ],
        repo,
    )


# -- word splitting with an IFS only the run knows ----------------------------------------------


def test_an_ifs_only_the_run_knows_may_split_a_value_anywhere(repo: Path) -> None:
    """``IFS=$(printf X)`` makes ``$D`` of ``/tmp/aX/`` the two fields ``/tmp/a`` and
    ``/`` (bash shows it): an unquoted value is then only known when the command runs; a
    quoted one stays whole."""
    fields = _ran("IFS=$(printf X); D=/tmp/aX/; printf '[%s]' $D", "", repo)
    assert fields == "[/tmp/a][/]"
    unknown = "refused: recursive rm deletes …, a path only known when the command runs"
    check(
        [
            ("IFS=$(printf X); D=/tmp/aX/; rm -rf $D", unknown),
            ("IFS=$(cat sep); D=build; rm -rf $D", unknown),
            ('IFS=$(printf X); D=/tmp/aX/; rm -rf "$D"', ALLOWED),
            ("IFS=$(cat sep); rm -rf build", ALLOWED),
            ("IFS=X; D=/tmp/aX/; rm -rf $D", "refused: recursive rm deletes the root directory"),
        ],
        repo,
    )
