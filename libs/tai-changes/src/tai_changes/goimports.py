"""goimports for tai: found where it is, or installed once, lazily, from the Go module proxy.

Go files that change blocks touch are formatted by goimports, which formats exactly as
gofmt does and also adds the imports a change needs and drops the ones it made unused. A
fresh machine has only the Go toolchain, so tai installs the tool itself the first time it
needs it, with the toolchain it finds, at a pinned version, into its own cache directory —
never into the user's ``GOBIN`` — and reuses it from then on. Lookup order:

1. ``$TAI_GOIMPORTS``: the executable to use; installed there when it does not exist
   (the way to point tai at a writable place, e.g. inside a sandbox);
2. ``goimports`` on ``PATH`` (the user's own);
3. ``<user cache>/tai/bin/goimports``, installed on first need — in a Go module before
   the sandbox starts, since inside it that directory is read-only.

The install goes to a temporary directory beside the destination and is moved into place
with one rename, so concurrent first uses never see half a binary. Run
``python -m tai_changes.goimports --install`` to install ahead of time (the test
script does, so parallel tests never race on it).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from tai_core.config import user_cache_dir
from tai_core.progress import Progress, run_counted

MODULE = "golang.org/x/tools/cmd/goimports"
VERSION = "v0.52.0"
_EXE = ".exe" if sys.platform == "win32" else ""
_found: dict[str, Path] = {}


#: A line of ``go build -v`` that names a package being compiled: an import path alone.
_PACKAGE = re.compile(r"[A-Za-z0-9_.~+-]+(/[A-Za-z0-9_.~+-]+)*")


def go_build_line(line: str) -> str | None:
    """What a line of ``go install -v`` / ``go build -v`` on standard error counts as: a
    module downloaded, a package compiled, or nothing (an error, a note)."""
    if line.startswith("go: downloading "):
        return "modules downloaded"
    if _PACKAGE.fullmatch(line) and not line.startswith("-"):
        return "packages compiled"
    return None


def go_build_errors(stderr: str) -> str:
    """The end of a failed ``go install -v``/``go build -v``'s standard error on one line,
    without the lines that only name what it downloaded or compiled."""
    kept = " ".join(line for line in stderr.splitlines() if not go_build_line(line))
    return " ".join(kept.split())[-400:]


class ToolError(Exception):
    """A Go tool tai needs cannot be found or installed; the message says what to do."""


def go_binary() -> Path:
    """The ``go`` command: on ``PATH``, else in ``$GOROOT/bin`` or ``/usr/local/go/bin``."""
    found = shutil.which("go")
    if found:
        return Path(found)
    for directory in (os.environ.get("GOROOT", ""), "/usr/local/go"):
        candidate = Path(directory) / "bin" / f"go{_EXE}"
        if directory and candidate.is_file():
            return candidate
    raise ToolError(
        "the Go toolchain (go) is not on PATH: Go files are formatted with goimports, which "
        "needs it; install Go from https://go.dev/dl/"
    )


def tool_env() -> dict[str, str]:
    """The environment for Go tools: ``go`` first on ``PATH`` (goimports runs it)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(go_binary().parent), env.get("PATH", "")])
    return env


def install(destination: Path) -> Path:
    """Install goimports at ``destination`` with the local Go toolchain; returns it."""
    go = go_binary()
    try:
        destination.parent.mkdir(parents=True, exist_ok=True)
        staging_dir = tempfile.TemporaryDirectory(prefix=".goimports-", dir=destination.parent)
    except OSError as error:
        raise ToolError(
            f"cannot install goimports into {destination.parent}: {error.strerror}; run "
            "`python -m tai_changes.goimports --install` where it is writable, or "
            "set TAI_GOIMPORTS to a goimports executable"
        ) from None
    with staging_dir as staging:
        env = tool_env()
        env["GOBIN"] = staging
        env.pop("GOFLAGS", None)
        command = [str(go), "install", "-v", f"{MODULE}@{VERSION}"]
        try:
            with Progress(f"building goimports {VERSION} with {go}") as progress:
                status, errors = run_counted(
                    command, progress, go_build_line, cwd=staging, env=env, timeout=600
                )
        except (OSError, TimeoutError) as error:
            raise ToolError(f"could not run {go} install {MODULE}@{VERSION}: {error}") from None
        built = Path(staging) / f"goimports{_EXE}"
        if status != 0 or not built.is_file():
            raise ToolError(
                f"could not install goimports ({go} install {MODULE}@{VERSION}: "
                f"{go_build_errors(errors)}); "
                "install it and put it on PATH, or set TAI_GOIMPORTS to its path"
            )
        built.replace(destination)
    return destination


def _wanted() -> Path:
    """Where goimports is looked for (and installed when missing)."""
    explicit = os.environ.get("TAI_GOIMPORTS", "")
    if explicit:
        return Path(explicit)
    on_path = shutil.which("goimports")
    return Path(on_path) if on_path else user_cache_dir() / "bin" / f"goimports{_EXE}"


def installed() -> Path | None:
    """The goimports executable when it is there already, else ``None``."""
    path = _wanted()
    return path if path.is_file() else None


def goimports_binary() -> Path:
    """The goimports executable to use (see the module docstring), installed if needed."""
    key = os.environ.get("TAI_GOIMPORTS", "") or "default"
    if key in _found and _found[key].is_file():
        return _found[key]
    found = installed() or install(_wanted())
    _found[key] = found
    return found


def main(argv: list[str] | None = None) -> int:
    """``python -m tai_changes.goimports --install``: make sure goimports is there
    and print its path."""
    args = sys.argv[1:] if argv is None else argv
    if args != ["--install"]:
        print("usage: python -m tai_changes.goimports --install", file=sys.stderr)
        return 2
    try:
        print(f"goimports: {goimports_binary()}")
    except ToolError as error:
        print(f"goimports: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
