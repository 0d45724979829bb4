"""The ``change`` kind: edits to files, applied to an in-memory store while the reply streams.

Change blocks are the one streaming kind: each is applied as soon as it is parsed
(:meth:`ChangeKind.apply`), to a :class:`~tai_core.store.FileStore` that reaches the disk
only when the whole round succeeds. Validation here is what can be known from the header
alone (an operation that needs ``find`` has one, an operation on a declaration names a Go
or Python file); whether the target exists is known only when applying. The operations live in
:mod:`tai_changes`, imported only when a block is applied, so loading this plugin
stays cheap. The plugin also adds the ``tai patch`` command, and installs goimports before
the sandbox starts (``tai_prepare_isolation``), since inside it cannot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tai_block_kit.common import CODE_COMMANDS, GO_COMMANDS, PY_COMMANDS
from tai_core import Block, BlockKind, Param, hookimpl

if TYPE_CHECKING:
    import click

    from tai_core.store import FileStore

#: The first sentence of ``tai patch``'s help, listed by ``tai --help``.
PATCH = "Apply the change blocks in FILE (default .AI) to the working directory."
GO_OPS = ("MODIFY", "ADD_BEFORE", "ADD_AFTER", "DELETE")
#: The files whose declarations change blocks edit: Go and Python source.
DECLARATION_FILES = (".go", ".py", ".pyi")
FILE_OPS = ("WRITE", "RENAME")
TEXT_OPS = ("REPLACE", "INSERT_BEFORE", "INSERT_AFTER")
OPS = GO_OPS + FILE_OPS + TEXT_OPS

_NEEDS_TARGET = frozenset({*GO_OPS, "RENAME"})
_NEEDS_BODY = frozenset(
    {"MODIFY", "ADD_BEFORE", "ADD_AFTER", "WRITE", "INSERT_BEFORE", "INSERT_AFTER"}
)
_EDGES = ("BEGIN", "END")


_INTRO = """\
# change blocks

Edit files with `change` blocks. Parameters: `op` (required), `file-path` (required),
`target`, `find`. One entity per block; prefer a precise operation to rewriting a file."""
_GO_RULES = """\
Go files, by declaration (`target` names a function `F`, a method `T.M` or `*T.M`, a type,
a constant or a variable; or `package`, `import`, `BEGIN`, `END`):
- MODIFY replaces the declaration with the body (doc comment included).
- ADD_BEFORE / ADD_AFTER insert the body before or after the declaration.
- DELETE removes the declaration; with `target="*"` it deletes the whole file.
The body is Go source; the declaration keyword may be left out. The result must parse; it
is formatted with gofmt and goimports.

A MODIFY or DELETE whose target does not exist fails. MODIFY of `import` replaces all
imports (an empty body removes them); MODIFY of `package` takes `package NAME` or `NAME`.
ADD_BEFORE / ADD_AFTER of `BEGIN` put the body after the imports, of `END` at the end;
an ADD of a name that already exists replaces it."""
_PY_RULES = """\
Python files, by declaration (`target` names a function `f`, a class `C`, a method
`C.m` or `Outer.Inner.m`, an assignment `NAME` or `C.attr`; or `BEGIN`, `END`):
- MODIFY replaces the declaration with the body: its decorators and the comment lines
  right above it included; definitions of one name next to each other (a property's
  getter and setter, overloads) are replaced together, so give them all in the body: a
  change that would drop one fails. For an assignment the body may be just the new value.
- ADD_BEFORE / ADD_AFTER insert the body before or after the declaration; `BEGIN` is
  after the module docstring and the imports, `END` the end of the file.
- DELETE removes the declaration (decorators and comments above included).
The body may be written at any indentation: it is indented to the target's. A target
that does not exist fails, naming the closest names; an ADD of a name that already exists
replaces it. The result, and a WRITE, must compile; it is formatted with the project's
formatter (ruff or black) when its configuration declares one. REPLACE / INSERT_* also
work on Python files (and on one this parser cannot read)."""
_ANY_FILE = """\
Any file:
- WRITE replaces (or creates) the whole file with the body.
- RENAME moves `file-path` to `target`.
- DELETE with `target="*"` deletes the file."""
_OTHER_FILES = """\
Other files (neither Go nor Python):
- REPLACE swaps `find` for the body (an empty body deletes it); INSERT_BEFORE /
  INSERT_AFTER put the body on lines of its own before or after `find`. `find` must occur
  exactly once in the file.
- ADD_BEFORE / ADD_AFTER with `target="BEGIN"` or `"END"` add the body at the start or the
  end (creating the file)."""
_OUTRO = """\
Changes reach the disk after a round succeeds, all together; a failing block fails the
round and you will be told which block failed and why."""


def _sections(commands: frozenset[str]) -> list[str]:
    """The paragraphs of the change kind's prompt for a command in ``commands``: the
    rules of Go and of Python files only where that language's kinds are (a Python
    project's prompt does not teach Go's)."""
    go, py = bool(commands & GO_COMMANDS), bool(commands & PY_COMMANDS)
    return [
        _INTRO,
        *([_GO_RULES] if go else []),
        *([_PY_RULES] if py else []),
        _ANY_FILE,
        _OTHER_FILES,
        _OUTRO,
    ]


class ChangeKind(BlockKind):
    """Edit, create, delete or rename a file."""

    name = "change"
    params = (
        Param("op", "The operation.", required=True, choices=OPS),
        Param(
            "target",
            "Go: the declaration (F, T, T.M, *T.M, package, import, BEGIN, END); "
            "Python: the declaration (f, Class, Class.method, Outer.Inner.method, CONSTANT, "
            "BEGIN, END); RENAME: the new path; DELETE of a whole file: *.",
        ),
        Param(
            "file-path",
            "The file to change (absolute, or relative to the working directory).",
            required=True,
        ),
        Param("find", "REPLACE / INSERT_BEFORE / INSERT_AFTER: text that occurs exactly once."),
    )
    streams = True
    triggers_round = False
    commands = CODE_COMMANDS
    prompt_section = "\n\n".join(_sections(GO_COMMANDS | PY_COMMANDS))
    restatement = (
        "change blocks: op and file-path always; target for Go and Python declarations and "
        "RENAME; find (occurring exactly once) for REPLACE and INSERT_*."
    )
    disabled_notice = (
        "files cannot be changed now; describe the edit in prose instead of writing a block."
    )

    def prompt_for(self, command: str) -> str:
        """The section in ``command``: the Go rules in Go goal loops, the Python rules in
        Python ones, both elsewhere."""
        return "\n\n".join(_sections(frozenset({command})))

    def check_body(self, block: Block) -> list[str]:
        """What the block's op needs and refuses; nothing for a missing or unknown op, which
        the parameter check reports (its rules would only add noise)."""
        op = block.params.get("op", "")
        if op not in OPS:
            return []
        target = block.params.get("target", "")
        path = block.params.get("file-path", "").strip()
        go_file, declarations = path.endswith(".go"), path.endswith(DECLARATION_FILES)
        problems = []
        if op in _NEEDS_TARGET and not target:
            problems.append(f"change op {op} needs a target")
        if op in TEXT_OPS and not block.params.get("find"):
            problems.append(f"change op {op} needs find (text occurring exactly once)")
        if op not in TEXT_OPS and "find" in block.params:
            problems.append(f"change op {op} takes no find; only REPLACE and INSERT_* do")
        if op in _NEEDS_BODY and not block.body and not (op == "MODIFY" and target == "import"):
            problems.append(f"change op {op} needs a body")
        if go_file and op in TEXT_OPS:
            problems.append(
                f"change op {op} does not work on Go files: use MODIFY, ADD_BEFORE, ADD_AFTER "
                "or DELETE with a declaration as target"
            )
        if not declarations and target and op in GO_OPS and target != "*" and target not in _EDGES:
            problems.append(
                f"change op {op} with a declaration target works on Go and Python files only; "
                "in other files use WRITE, REPLACE, INSERT_*, ADD_* with BEGIN/END or DELETE "
                "with *"
            )
        return problems

    def apply(self, block: Block, workspace: FileStore) -> FileStore:
        """Apply ``block`` to the store ``workspace`` (while the reply streams) and return
        the new store; raises :class:`tai_changes.ChangeError` (one line naming op,
        target and file) when the block cannot be applied — first of all when it names a
        file withheld as a secret, which the store judges with the run's
        ``tai_secret_file`` hook (this method is handed no run context: the store carries
        the check, see :mod:`tai_changes._apply`). The Go files changed are
        formatted (goimports), and the Python files with their project's formatter, when
        the store is finished or flushed."""
        from tai_changes import apply_change

        return apply_change(workspace, block)


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the change kind."""
    register(ChangeKind())


@hookimpl
def tai_register_commands(cli: click.Group) -> None:
    """Add ``tai patch`` (imported when it runs)."""
    from tai_core.cli import LazyCommand

    cli.add_command(LazyCommand("patch", "tai_changes._patch:patch_command", PATCH))


@hookimpl
def tai_prepare_isolation(cwd: str, config: Mapping[str, Any]) -> None:
    """In a Go module, install goimports now if it is missing: inside the sandbox the
    directory of tai's helper programs is read-only (nothing a model runs may replace a
    program tai runs later)."""
    del config
    from pathlib import Path

    from tai_core.config import go_module_root

    if go_module_root(Path(cwd).resolve()) is None:
        return
    from tai_changes.goimports import ToolError, goimports_binary, installed

    if installed() is not None:
        return
    import click

    click.echo("tai: installing goimports into tai's cache (once, before the sandbox)", err=True)
    try:
        goimports_binary()
    except ToolError as error:
        click.echo(f"tai: warning: {error}", err=True)
