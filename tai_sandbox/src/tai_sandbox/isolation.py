"""The ``sandbox`` plugin: tai's run in user, mount, PID, UTS and IPC namespaces.

Implements ``tai_enter_isolation`` (called by the command line before a command that runs
model output; it fails closed), ``tai_path_policy`` (change blocks may write only what the
sandbox lets them write), a ``tai_run_block`` wrapper that sweeps protected paths created
by a block (``_sweep``), ``tai_block_process`` (the network cut, ``_netless``), the global
flags ``-no-sandbox`` and ``-no-network``, and the command ``tai sandbox`` (``run`` a
command inside the sandbox tai would use here; list the writable and protected ``paths``).

A dry run of the default command (``-no-apply``) gets the working directory itself as an
overlay whose writes are dropped (``TAI_DRY_RUN_OVERLAY`` says so to the command): the run
flushes, tests and commands see its changes, and the user's tree is never written. Where
the kernel refuses that overlay the dry run stops (fail closed) rather than write for real.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import stat
import sys
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import click

from tai_core import BlockResult, IsolationError, hookimpl
from tai_core.plugins import PluginHookError
from tai_sandbox._survey import JOURNAL_DIR
from tai_sandbox.paths import (
    RUNS_DIR,
    SCRATCH_ROOTS,
    WritableSet,
    activate,
    current,
    existing_protected,
    installation,
    named_protected,
    writable_set,
)

#: Set inside the sandbox, so a tai started there does not enter again.
INSIDE_VARIABLE = "TAI_IN_SANDBOX"
#: ``TAI_NO_SANDBOX=1`` runs without the sandbox, as ``-no-sandbox`` does.
DISABLE_VARIABLE = "TAI_NO_SANDBOX"
NO_SANDBOX_FLAGS = ("-no-sandbox", "--no-sandbox")
NO_NETWORK_FLAGS = ("-no-network", "--no-network")
#: The default command's dry run: the working directory becomes a throwaway overlay.
DRY_RUN_FLAGS = ("-no-apply", "--no-apply")
#: Set inside a dry run to the working directory that is overlaid.
DRY_RUN_VARIABLE = "TAI_DRY_RUN_OVERLAY"
#: Go's caches for runs where the kernel refuses overlays (never read outside).
PRIVATE_GO_DIR = "go-sandbox"
_OPT_OUT_HINT = "run with -no-sandbox (or TAI_NO_SANDBOX=1) to run model output unsandboxed"

_warned: list[str] = []
#: What this process entered: the inventory the per-block sweep compares with, and
#: whether the programs of blocks run without network.
_entered: dict[str, Any] = {}


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.append(message)
        click.echo(f"tai: warning: {message}", err=True)


def _words(argv: Sequence[str]) -> list[str]:
    return list(itertools.takewhile(lambda arg: arg != "--", argv))


def _opted_out(argv: Sequence[str]) -> str | None:
    if any(word in NO_SANDBOX_FLAGS for word in _words(argv)):
        return "-no-sandbox"
    if os.environ.get(DISABLE_VARIABLE, "").strip().lower() not in ("", "0", "false", "no"):
        return f"{DISABLE_VARIABLE}={os.environ[DISABLE_VARIABLE]}"
    return None


def _subcommand(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs (the default command is named by then: ``code``)."""
    words = iter(_words(argv))
    for word in words:
        if word in ("-p", "--plugin"):
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def dry_run(argv: Sequence[str]) -> bool:
    """Whether ``argv`` is a dry run of the default command (``tai code -no-apply``)."""
    return _subcommand(argv) == "code" and any(w in DRY_RUN_FLAGS for w in _words(argv))


def network_cut(argv: Sequence[str], config: Mapping[str, Any]) -> bool:
    """Whether the programs of blocks run without network (``-no-network``, or
    ``sandbox_network = false``)."""
    if any(word in NO_NETWORK_FLAGS for word in _words(argv)):
        return True
    return config.get("sandbox_network") is False


def _real_directory(path: Path) -> bool:
    try:
        return stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False


def _stale_runs(runs: Path) -> None:
    """Remove the overlay layers of runs whose tai is gone (killed with ``-9``). Links are
    never followed: neither ``runs`` nor an entry of it may lead elsewhere."""
    if not _real_directory(runs):
        return
    for entry in runs.iterdir():
        if entry.name.isdigit() and not Path(f"/proc/{entry.name}").exists():
            _remove_tree(entry)


def _remove_tree(path: Path) -> None:
    """Remove the directory ``path`` (a run's layers) without following a link anywhere."""
    import shutil  # when a run ends, not at start-up

    def writable_again(function: Any, name: str, _: Any) -> None:
        # overlayfs leaves its work directory without permissions: open real directories
        # only (a link in a layer was made inside, and may lead anywhere), then do again
        # what failed; a directory rmtree could not enter (only root enters it regardless)
        # is removed whole
        for directory in (Path(name).parent, Path(name)):
            if _real_directory(directory):
                directory.chmod(0o700)
        if function is os.open:
            shutil.rmtree(name, onerror=writable_again)
        else:
            function(name)

    if _real_directory(path):
        shutil.rmtree(path, onerror=writable_again)


def _layers(writable: WritableSet, cache: Path, dry_run: bool) -> tuple[Path, list[Any]]:
    """This run's directory for overlay layers, and one layer per Go cache — and for the
    working directory itself in a dry run (its writes, flushes included, are dropped)."""
    from tai_sandbox._mounts import Layer

    runs = cache / RUNS_DIR
    _stale_runs(runs)
    run = runs / str(os.getpid())
    layers = []
    targets = [writable.cwd] if dry_run else []
    for index, target in enumerate([*targets, *writable.overlays]):
        target.mkdir(parents=True, exist_ok=True)
        upper, work = run / str(index) / "upper", run / str(index) / "work"
        upper.mkdir(parents=True, exist_ok=True)
        work.mkdir(parents=True, exist_ok=True)
        layers.append(Layer(target, upper, work))
    return run, layers


#: tai's exit status for a command line or configuration it cannot use (the README's
#: exit statuses): the run did not start.
_NOT_STARTED = 2


def _show_dry_run(upper: Path, writable: WritableSet, status: int) -> None:
    """After a dry run that ended with ``status``, outside: the diff of everything it would
    change, from the layer its writes went to (change blocks, commands, builds alike); of a
    run that did not start (no model, say) and changed nothing, nothing is said."""
    from tai_core.store import render_diff
    from tai_sandbox._dryrun import layer_changes

    own = [JOURNAL_DIR, *(str(r.relative_to(writable.cwd)) for r in writable.roots[1:]
                          if r != writable.cwd and r.is_relative_to(writable.cwd))]  # fmt: skip
    try:
        diff = render_diff(layer_changes(upper, writable.cwd, tuple(own)), sys.stderr.isatty())
    except OSError as error:
        click.echo(f"tai: dry run: the changes cannot be shown: {error}", err=True)
        return
    if not diff and status == _NOT_STARTED:
        return
    if diff:
        click.echo(diff.rstrip("\n"), err=True)
    click.echo(
        "tai: dry run (-no-apply): nothing was written to your working tree; "
        + ("the diff above is what the run would change" if diff else "the run changed nothing"),
        err=True,
    )


def _private_go_caches(cache: Path) -> dict[str, str]:
    """Go's cache variables pointing at tai's private caches (runs without overlays)."""
    base = cache / PRIVATE_GO_DIR
    names = {"GOCACHE": "build", "GOMODCACHE": "mod", "GOPATH": "path"}
    values = {name: str(base / leaf) for name, leaf in names.items()}
    for value in values.values():
        Path(value).mkdir(parents=True, exist_ok=True)
    return values


def _report(messages: list[str]) -> None:
    for message in messages:
        click.echo(f"tai: sandbox: {message}", err=True)


#: What marks the root of the project a working directory belongs to: a Go module or
#: workspace, a Python project, a git checkout.
PROJECT_MARKERS = ("go.mod", "go.work", "pyproject.toml", "setup.cfg", "setup.py", ".git")


def project_roots(cwd: Path) -> list[Path]:
    """The directories above ``cwd`` that hold one of :data:`PROJECT_MARKERS`: the
    project a subdirectory belongs to. They stay readable (never writable) inside the
    sandbox when they live under ``/tmp``, which is otherwise fresh, so that a run from a
    subdirectory of a checkout in ``/tmp`` still finds its module, as it does anywhere
    else."""
    return [
        directory
        for directory in cwd.parents
        if any((directory / marker).exists() for marker in PROJECT_MARKERS)
    ]


@hookimpl
def tai_prepare_isolation(cwd: str, config: Mapping[str, Any]) -> None:
    """Import what entering will use, before the command line keeps the code of the
    classes and patterns compiled so far (``tai_core.cli._kept_code``): once entered, that
    cache is read-only, so what is first compiled here would be compiled at every start."""
    del cwd, config
    from tai_sandbox import _go_env, _mounts, _sweep  # noqa: F401 - for their classes, json's patterns


@hookimpl
def tai_enter_isolation(argv: Sequence[str], cwd: str, config: Mapping[str, Any]) -> str | None:
    """Enter the sandbox (see the package docstring); what is in force. Fails closed."""
    if os.environ.get(INSIDE_VARIABLE) == "1":
        return "sandbox: already inside (entered by an outer tai)"
    reason = _opted_out(argv)
    if reason:
        return f"no sandbox ({reason})"
    if sys.platform != "linux":
        raise IsolationError(f"tai's sandbox needs Linux namespaces; {_OPT_OUT_HINT}")
    from tai_core.config import user_cache_dir
    from tai_sandbox._mounts import build_view
    from tai_sandbox._process import SandboxUnavailable, enter
    from tai_sandbox._sweep import sweep, take

    try:
        writable = writable_set(Path(cwd), config)
        activate(writable)
        found = named_protected(writable.cwd)
        protected = existing_protected(writable, found)
        inventory = take(writable, found)
        cache = user_cache_dir().expanduser().resolve()
        dry = dry_run(argv)
        run, layers = _layers(writable, cache, dry)
    except OSError as error:
        raise IsolationError(f"the sandbox cannot be set up: {error}; {_OPT_OUT_HINT}") from None

    def on_exit(status: int) -> None:
        _report(sweep(inventory))
        if dry:
            _show_dry_run(layers[0].upper, writable, status)
        _remove_tree(run)

    from tai_core.config import user_config_dir

    readable = [
        *installation(),
        user_config_dir().expanduser().resolve(),
        *project_roots(writable.cwd),
    ]
    view = partial(build_view, writable, protected, layers, readable)
    try:
        refused_overlays = enter(view, on_exit)
    except SandboxUnavailable as error:
        _remove_tree(run)
        raise IsolationError(f"the sandbox cannot be set up: {error}; {_OPT_OUT_HINT}") from None
    os.environ[INSIDE_VARIABLE] = "1"
    from tai_sandbox._process import UNSCOPED

    if UNSCOPED:
        _warn_once(
            f"sandbox: abstract unix sockets of this machine stay reachable inside ({UNSCOPED[0]}; "
            "Linux 6.12 closes them); -no-network cuts them for blocks"
        )
    _entered.update(inventory=inventory, network=not network_cut(argv, config))
    if dry:
        refused_worktree = [p for p in refused_overlays if p.startswith(f"{writable.cwd}: ")]
        if refused_worktree:
            raise IsolationError(
                f"a dry run (-no-apply) needs an overlay of the working directory, which the "
                f"kernel refused ({refused_worktree[0]}); run without -no-apply"
            )
        os.environ[DRY_RUN_VARIABLE] = str(writable.cwd)
        refused_overlays = [p for p in refused_overlays if p not in refused_worktree]
        # the overlay gives its own inode numbers: the per-block sweep compares with these
        _entered["inventory"] = take(writable, named_protected(writable.cwd))
    if refused_overlays:
        os.environ.update(_private_go_caches(cache))
        _warn_once(
            "sandbox: Go's caches cannot be overlaid here ("
            + "; ".join(refused_overlays)
            + f"); builds use tai's own caches in {cache / PRIVATE_GO_DIR}"
        )
    return "sandbox: writable " + ", ".join(str(root) for root in writable.roots)


@hookimpl
def tai_path_policy(path: str, operation: str) -> tuple[bool, str] | None:
    """Writes only inside the writable set and never to protected paths; reads are not
    this plugin's concern."""
    if operation == "read":
        return None
    refusal = current().refusal(path)
    if refusal:
        return False, refusal
    return True, f"{path} is inside the writable directories"


def _end_strays() -> None:
    """End every process of the sandbox but tai and PID 1: what a block left running in
    the background (``setsid``, a double fork). A block's programs are over when its
    result is fed back; one left running could read what tai's own helpers (``go``,
    ``goimports``) carry later, through ``/proc``."""
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) not in (1, me):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(entry.name), signal.SIGKILL)


@hookimpl(wrapper=True)
def tai_run_block(block: Any, kind: Any, context: Any) -> Any:
    """After a block that ran inside the sandbox, end what it left running and remove the
    protected paths it created; the block then fails with what was removed."""
    result = yield
    if "inventory" not in _entered or kind.streams:
        return result
    from tai_sandbox._sweep import sweep

    _end_strays()
    messages = sweep(_entered["inventory"])
    if not messages:
        return result
    _report(messages)
    text = "\n".join(messages)
    earlier = result.text if result is not None else ""
    return BlockResult(
        kind=block.kind,
        ok=False,
        text=f"{earlier}\n\nThe sandbox removed what this block created under protected "
        f"names (they would act outside the sandbox later):\n{text}\n",
    )


@hookimpl
def tai_block_process(argv: list[str], env: dict[str, str], config: Mapping[str, Any]) -> None:
    """Without network, the program runs in a network namespace of its own (``_netless``)."""
    del env, config
    if _entered.get("network") is False:
        from tai_sandbox._netless import wrap

        argv[:] = wrap(argv)


@click.group("sandbox")
def sandbox_command() -> None:
    """The sandbox tai runs model output in (Linux namespaces)."""


@sandbox_command.command("run", context_settings={"ignore_unknown_options": True})
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@click.pass_obj
def run_command(app: Any, command: tuple[str, ...]) -> None:
    """Run COMMAND inside the sandbox tai would use here (use -- before its options).

    Shows what a model's commands can and cannot do: try writing somewhere.
    """
    try:
        isolation = app.host.pm.hook.tai_enter_isolation(
            argv=sys.argv[1:], cwd=str(Path.cwd()), config=app.config.values
        )
    except (IsolationError, PluginHookError) as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"tai: {isolation or 'no sandbox'}", err=True)
    argv, env = list(command), dict(os.environ)
    app.host.pm.hook.tai_block_process(argv=argv, env=env, config=app.config.values)
    try:
        os.execvpe(argv[0], argv, env)
    except OSError as error:
        raise click.ClickException(f"{argv[0]}: {error.strerror}") from None


@sandbox_command.command("paths")
@click.pass_obj
def paths_command(app: Any) -> None:
    """List the writable directories and what is protected inside them."""
    writable = writable_set(Path.cwd(), app.config.values)
    scratch = [root for root in writable.roots if root in SCRATCH_ROOTS and root != writable.cwd]
    click.echo("writable:")
    for root in writable.roots:
        if root not in scratch:
            click.echo(f"  {root}")
    click.echo("writable, private (empty at the start, dropped when the run ends):")
    for root in scratch:
        click.echo(f"  {root}")
    click.echo("overlaid (writes dropped when the run ends):")
    for root in writable.overlays:
        click.echo(f"  {root}")
    click.echo("protected (read-only inside the sandbox):")
    for path in existing_protected(writable):
        click.echo(f"  {path}")
    click.echo("hidden:")
    for path in writable.hidden:
        click.echo(f"  {path}")
    click.echo(
        "created inside under a protected name (.git, .vscode, tai.toml, .tai.toml, "
        ".tai-journal): removed after each block and when the run ends"
    )


@hookimpl
def tai_register_commands(cli: click.Group) -> None:
    """Add ``-no-sandbox``, ``-no-network`` and the ``sandbox`` command."""
    cli.params.append(
        click.Option(
            list(NO_SANDBOX_FLAGS),
            is_flag=True,
            expose_value=False,
            help=f"Run model output without the sandbox (also: {DISABLE_VARIABLE}=1).",
        )
    )
    cli.params.append(
        click.Option(
            list(NO_NETWORK_FLAGS),
            is_flag=True,
            expose_value=False,
            help="Run the programs of blocks without network (also: sandbox_network = false).",
        )
    )
    cli.add_command(sandbox_command)
