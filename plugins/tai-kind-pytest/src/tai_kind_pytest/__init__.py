"""The ``pytest`` kind: a Python project's tests with the block's arguments, fed back.

**What runs.** ``python -m pytest`` with the body's arguments (each line split as a shell
splits words, no shell; an empty body runs the project's suite as its configuration
says), in the working directory, with the project's own Python: its ``.venv/`` or
``venv/`` at the project root, else ``python3`` on PATH, else — said in the answer — the
interpreter running tai (:mod:`tai_kind_pytest._interpreter` says why ``uv run`` is not
used). The answer's head names the working directory, the interpreter and why it was
chosen, and the whole command; its status line reads pytest's exit status: passed,
tests failed, interrupted (mostly errors while collecting), internal error, usage error,
and *no tests collected*, which is not a pass. Pass or fail, the block starts a round;
it is ``ok`` only when pytest exited with 0.

**Where.** Like ``go-test`` and ``shell`` (``runs_programs``: a checkpoint comes first),
the command runs in the run's own process — inside the sandbox on Linux, which tai entered
before any block runs — through :mod:`tai_block_kit.testrun`: its own process group,
killed with all it started at ``pytest_timeout`` seconds (300 by default: a Python suite
starts slower than a Go one and ``go test``'s result cache has no pytest counterpart),
the head and tail of each stream kept, secrets out of its environment. An interpreter
the model could have planted (a ``.venv/bin/python`` written by a change block) therefore
runs only where anything the model wrote runs.

**What is added.** ``-p no:cacheprovider``: pytest writes no ``.pytest_cache`` into the
user's tree (the rootdir may lie above the working directory, read-only in the sandbox),
and a block means the same run whatever ran before it. ``--color=no``: the model reads
text, not escape codes. ``PYTHONDONTWRITEBYTECODE=1``: no ``__pycache__`` left in the
tree (pytest's rewritten test modules included), and ``PYTHONBREAKPOINT=0``: a
``breakpoint()`` left in the code does nothing instead of opening a debugger with no one
to answer it.

**What is refused**, with a one-line reason before anything starts: ``--pdb``,
``--trace`` and ``--pdbcls`` (a debugger waits on a terminal; a block has none),
``-f``/``--looponfail`` (waits for file changes forever), ``--basetemp`` (pytest empties
the directory it names), ``--pastebin`` (sends the output to a web service), ``--tx``,
``--px`` and ``--rsyncdir`` (pytest-xdist workers over ssh or sockets, beyond the
process group; ``-n`` runs local ones), and the options that need the cache turned off
above (``--lf``, ``--ff``, ``--nf``, ``--sw`` …). A refused short option is caught on
its own (``-f``), not inside a cluster (``-xf``); the time limit still ends that run.

**What is not refused**: ``-p NAME`` (loading a plugin module), ``--rootdir``, ``-c`` and
``--confcutdir``. They choose which of the project's modules and configuration files
pytest loads — and pytest runs the project's code anyway: every ``conftest.py`` is
imported, and a model that can write files can write one. Refusing them would protect
nothing and lose ``-p no:NAME`` (switching off a plugin that gets in the way); what
protects the user is the sandbox, not the argument list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tai_block_kit.common import NOT_PY, PY_COMMANDS, PY_FILES, LanguageKind
from tai_block_kit.testrun import ProjectTestKind, block_arguments, run_tests, time_limit
from tai_core import BlockKind, BlockResult, RunContext, hookimpl

if TYPE_CHECKING:
    from tai_block_kit.run import Finished

#: Seconds pytest may run unless ``pytest_timeout`` says otherwise.
DEFAULT_TIMEOUT = 300.0
#: Put before the block's arguments (a later ``--color=yes`` of the block wins).
ADDED_OPTIONS = ("-p", "no:cacheprovider", "--color=no")
#: Set in pytest's environment over tai's.
VARIABLES = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONBREAKPOINT": "0"}

_TERMINAL = (
    "it opens a debugger that waits for input at a terminal, and a block has none "
    "(-l/--showlocals and --tb=long show more of a failure)"
)
_LOOP = "it waits for files to change and runs again, never ending"
_REMOTE = (
    "it starts pytest-xdist workers over ssh or sockets, beyond the run's control "
    "(-n N runs local ones)"
)
_CACHE = (
    "it needs pytest's cache, which tai turns off (no .pytest_cache in the project): "
    "name the tests to run again by their node ids or -k"
)
_CACHE_OPTIONS = (
    "--lf", "--last-failed", "--ff", "--failed-first", "--nf", "--new-first", "--lfnf",
    "--last-failed-no-failures", "--sw", "--stepwise", "--sw-skip", "--stepwise-skip",
    "--sw-reset", "--stepwise-reset", "--cache-show", "--cache-clear",
)  # fmt: skip
#: Options refused, with the reason the answer gives.
REFUSED: dict[str, str] = {
    "--pdb": _TERMINAL,
    "--trace": _TERMINAL,
    "--pdbcls": _TERMINAL,
    "-f": _LOOP,
    "--looponfail": _LOOP,
    "--basetemp": "pytest empties the directory it names before the run",
    "--pastebin": "it sends the test output to a web service",
    "--tx": _REMOTE,
    "--px": _REMOTE,
    "--rsyncdir": _REMOTE,
    **dict.fromkeys(_CACHE_OPTIONS, _CACHE),
}

#: The status line of each of pytest's exit statuses.
STATUSES = {
    0: "Tests passed.",
    1: "Tests failed (exit status 1): some tests failed.",
    2: (
        "Tests interrupted (exit status 2): pytest stopped early, mostly at errors while "
        "collecting the tests; the tests after them did not run."
    ),
    3: "pytest failed (exit status 3): an internal error, in pytest, a plugin or a conftest.py.",
    4: "pytest failed (exit status 4): a usage error, its arguments or configuration refused.",
    5: (
        "No tests ran (exit status 5): pytest collected none. This is not a pass: check the "
        "paths, node ids and -k or -m expressions."
    ),
}


def split_arguments(body: str) -> list[str]:
    """The block's arguments of pytest (none: the project's suite); raises ``ValueError``
    for unbalanced quotes and for the options in :data:`REFUSED`."""
    return block_arguments(body, REFUSED, "pytest")


def status(finished: Finished, interpreter: str) -> str:
    """The status line of a pytest run that ended by itself."""
    if finished.code == 1 and "No module named pytest" in finished.stderr:
        return f"Tests not run (exit status 1): pytest is not installed for {interpreter}."
    if finished.code in STATUSES:
        return STATUSES[finished.code]
    if finished.code < 0:
        return f"Tests failed: pytest was ended by signal {-finished.code}."
    return f"Tests failed with error: exit status {finished.code}"


class PytestKind(LanguageKind, ProjectTestKind):
    """Run pytest in the working directory, with the project's Python."""

    name = "pytest"
    refused = REFUSED
    commands = PY_COMMANDS
    omitted_in = NOT_PY
    language_files = PY_FILES
    prompt_section = """\
# pytest blocks

Run the project's Python tests with a `pytest` block. The body holds the arguments of
pytest, split as a shell splits words, one or more per line (for example `-k`,
`parse and not slow`, `tests/test_parse.py::test_empty`, `-x`); an empty body runs the
project's whole suite. pytest runs in the working directory after your changes of this
round are written, as `python -m pytest` with the project's own virtual environment
(`.venv/` or `venv/` at the project root) when it has one, else `python3` from PATH; the
answer names the interpreter and the command. Passing or failing, the output arrives in
the next message; "no tests collected" is not a pass. Select the tests you need (node ids,
`-k`) to keep it short. There is no terminal and no pytest cache: `--pdb`, `--trace`,
`--lf` and `--ff` are refused. Still end your reply with a summary block."""
    restatement = (
        "pytest blocks: arguments of pytest, one or more per line (empty: the whole suite); "
        "results arrive next."
    )

    def run(self, args: list[str], context: RunContext) -> BlockResult:
        """Run ``python -m pytest`` with ``args`` in the working directory."""
        import shlex

        from tai_kind_pytest._interpreter import find_interpreter

        python = find_interpreter(context.cwd)
        argv = [python.path, "-m", "pytest", *ADDED_OPTIONS, *args]
        return run_tests(
            self.name, argv, context,
            head=f"Interpreter: {python.path} ({python.reason})\n"
                 f"Pytest command: {shlex.join(argv)}",
            timeout=time_limit(context, "pytest_timeout", DEFAULT_TIMEOUT),
            status=lambda finished: status(finished, python.path),
            what=f"pytest {shlex.join(args)}".strip(), variables=VARIABLES,
        )  # fmt: skip


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the pytest kind."""
    register(PytestKind())
