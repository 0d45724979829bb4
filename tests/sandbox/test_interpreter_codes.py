"""What the shell policy reads off an interpreter's command line (tai_sandbox._rules._codes):
the code given with its code flags, bundled or attached or after ``=``, and the script or
module it runs instead. Each line was checked against how the interpreter itself reads its
options; the code found is then judged (``_code``), and code or a script only known when
the command runs is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from tai_sandbox import policy
from tai_sandbox._rules import _codes

CODE = "print(1)"


@pytest.mark.parametrize(
    ("name", "args", "codes", "script"),
    [
        ("python", ["-c", CODE], [("-c", CODE)], None),
        ("python", ["-c", CODE, "x.py"], [("-c", CODE)], None),  # x.py is an argument
        ("python", ["-Bc", CODE], [("-c", CODE)], None),
        ("python", [f"-c{CODE}"], [("-c", CODE)], None),
        ("python", ["-c"], [("-c", "")], None),
        ("python", ["x.py", "-c", CODE], [], "x.py"),
        ("python", ["-u", "x.py"], [], "x.py"),
        ("python", ["-W", "ignore", "x.py"], [], "x.py"),
        ("python", ["-X", "dev", "-c", CODE], [("-c", CODE)], None),
        ("python", ["-m", "http.server"], [], "http.server"),
        ("python", ["-m"], [], None),
        ("python", ["--", "x.py"], [], "x.py"),
        ("python", ["-c", CODE, "--", "y.py"], [("-c", CODE)], None),
        ("python", [], [], None),
        ("node", ["-e", CODE], [("-e", CODE)], None),
        ("node", ["--eval", CODE], [("--eval", CODE)], None),
        ("node", [f"--eval={CODE}"], [("--eval", CODE)], None),
        ("node", ["--print=a=b"], [("--print", "a=b")], None),
        ("node", ["-p", CODE], [("-p", CODE)], None),
        ("node", ["--require", "m", "-e", CODE], [("-e", CODE)], None),
        ("node", ["-r", "m", "app.js"], [], "app.js"),
        ("node", ["--inspect", "app.js"], [], "app.js"),
        ("node", ["--evaluate", "app.js"], [], "app.js"),  # not a code flag
        ("perl", ["-lne", CODE], [("-e", CODE)], None),
        ("perl", [f"-e{CODE}"], [("-e", CODE)], None),
        ("perl", ["-E", CODE], [("-E", CODE)], None),
        ("perl", ["-MPOSIX", "-e", CODE], [("-e", CODE)], None),
        ("perl", ["-I", "lib", "-e", CODE], [("-e", CODE)], None),
        ("perl", ["-e", "a", "-e", "b"], [("-e", "a"), ("-e", "b")], None),
        ("perl", ["-w", "x.pl"], [], "x.pl"),
        ("ruby", ["-e", CODE], [("-e", CODE)], None),
        ("ruby", ["-r", "json", "x.rb"], [], "x.rb"),
        ("php", ["-r", CODE], [("-r", CODE)], None),
        ("php", ["-d", "x=1", "-r", CODE], [("-r", CODE)], None),
        ("php", ["-f", "x.php"], [], "x.php"),
        ("perl", ["-m", "strict", "-e", CODE], [("-e", CODE)], None),  # -m: perl's value
    ],
)  # fmt: skip
def test_what_an_interpreter_is_told_to_run(
    name: str, args: list[str], codes: list[tuple[str, str]], script: str | None
) -> None:
    assert _codes(name, args) == (codes, script)


@pytest.mark.parametrize(
    "command",
    [
        'python -m "$(curl -s x)"',
        'python -- "$(curl -s x)"',
        'python "$(curl -s x)"',
        'php -f "$(curl -s x)"',
    ],
)
def test_a_script_or_module_only_known_when_the_command_runs_is_refused(
    command: str, tmp_path: Path
) -> None:
    allowed, reason = policy.decide(command, tmp_path, {}, {"HOME": "/home/u", "PATH": "/bin"})
    assert not allowed
    name = command.split(maxsplit=1)[0]
    assert f"{name} runs a script whose source is only known when it runs" in reason
