"""``tai [flags] chat "TASK"``: the default command (also reachable as ``tai code``).

Inside a Go module or a Python project: goal loops with the staged context (documentation
first, source on demand); elsewhere: one session over the directory's text files. The work
itself is in ``_code``; this module only declares the flags, so ``tai --help`` stays light.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from tai_core.commands._options import generation_options, parse_flags

#: The name the command line inserts when no command is named.
DEFAULT_COMMAND = "code"


@click.command(DEFAULT_COMMAND)
@generation_options
@click.option(
    "-pkg",
    "-load",
    "--pkg",
    "--load",
    "focus",
    multiple=True,
    metavar="PATTERN",
    help="Focus packages (Go: default ./...; Python: modules or directories).",
)
@click.option(
    "-ctx",
    "-dep",
    "--ctx",
    "--dep",
    "context",
    multiple=True,
    metavar="PATTERN",
    help="Context packages, shown as code.",
)
@click.option(
    "-doc", "--doc", "docs", multiple=True, metavar="PACKAGE", help="Add a package's documentation."
)
@click.option(
    "-match",
    "-include",
    "--match",
    "match",
    multiple=True,
    metavar="REGEX",
    help="Only files matching REGEX.",
)
@click.option(
    "-ignore",
    "-skip",
    "-exclude",
    "--ignore",
    "ignore",
    multiple=True,
    metavar="PATTERN",
    help="Leave out matching files.",
)
@click.option(
    "-all-src",
    "--all-src",
    "all_src",
    is_flag=True,
    help="Full source of the focus instead of its documentation.",
)
@click.option(
    "-py",
    "--py",
    "python",
    is_flag=True,
    help="Stage the context as a Python project even without pyproject.toml or setup.py.",
)
@click.option("-shell", "--shell", "shell", is_flag=True, help="Enable shell blocks.")
@click.option(
    "-apply/-no-apply",
    "--apply/--no-apply",
    "apply",
    default=True,
    help="Write changes (default), or only print the diff they would make.",
)
@click.option(
    "-review",
    "--review",
    "review",
    is_flag=True,
    help="End with a review session over the run's changes.",
)
@click.option(
    "-review-model",
    "--review-model",
    "review_model",
    metavar="NAME",
    help="The model of the review (default: -model).",
)
@click.option(
    "-max-loops",
    "--max-loops",
    "max_loops",
    type=click.IntRange(1, 100),
    default=20,
    show_default=True,
    help="Goal loops at most (Go modules, Python projects); a done in the last one earns "
    "one more, to confirm it.",
)
@click.pass_obj
def code_command(app: Any, **params: Any) -> None:  # fmt: skip
    """The default command: goal loops in a Go module or a Python project, text-file
    generation elsewhere."""
    from tai_core.commands._assemble import Selection
    from tai_core.commands._code import CodeOptions, run_code

    flags = parse_flags(params)
    selection = Selection(
        focus=params["focus"], context=params["context"], docs=params["docs"],
        match=params["match"], ignore=params["ignore"], all_src=params["all_src"],
        provider="py" if params["python"] else None,
    )  # fmt: skip
    options = CodeOptions(
        selection=selection, shell=params["shell"], apply=params["apply"],
        review=params["review"], review_model=params["review_model"],
        max_loops=params["max_loops"],
    )  # fmt: skip
    sys.exit(run_code(app, flags, options))
