"""The documentation helper: ``go doc`` of many packages in one process.

A ``go doc`` process per package costs more than its parse: each one starts the ``go``
command, which runs ``go env`` and ``go list -m`` subprocesses of its own to find the
module roots, before it documents one package. tai therefore keeps a small Go program
in this package (``godoc/*.go``, package data in the wheel, standard library only) that
renders the documentation of every package a collection needs in one process, byte for
byte as ``go doc [-all] [-u] -cmd DIR`` of the same toolchain prints it (the program's
own comments say how). The bytes of each package's files come from the load's snapshot,
so the documentation is that of the tree the model sees. Running it is
:mod:`._docsession`'s part.

*Built with the user's toolchain, once per toolchain.* The helper must use the go/build,
go/doc and go/format of the ``go doc`` it stands in for, so it is built with that
toolchain (``go env GOROOT`` in the load's directory, which follows a ``toolchain``
line too), with ``-trimpath`` exactly when that toolchain's ``go`` was (then go/build
sees no GOROOT unless the environment sets one, in ``go doc`` and in the helper alike),
into ``<user cache>/bin/godoc-<hash>/``, the hash covering the helper's source, ``go
version`` and that choice. The build goes to a temporary directory beside it that is
renamed into place, so concurrent first uses never see half a binary. ``bin`` is
read-only inside the sandbox, so the Go context builds the helper in
``tai_prepare_isolation`` (saying so, the one time it builds), and the test script
builds it before the suite (``python -m tai_go._godoc --install``); outside a
sandbox it is otherwise built on first need.

*Never less right than go doc.* Where the helper cannot be had — Go older than
:data:`MIN_GO`, a failed build, a read-only cache — or where it declines a package (a
file selection ``go doc`` would make differently, a parse error, GOPATH mode, a package
without Go files), that package gets a real ``go doc``, as before. Nothing is said
about it: the documentation is the same either way, only slower. A build that failed is
not tried again in the same process.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs

#: The oldest Go release the helper stands in for: the one its output was compared
#: with, byte for byte, on real modules (the suite repeats the comparison with whatever
#: toolchain it runs with, so a newer release that prints differently shows up there).
#: Older releases' ``go doc`` printed some things differently; they keep running it.
MIN_GO = (1, 26)
SOURCE = Path(__file__).with_name("godoc")
_EXE = ".exe" if sys.platform == "win32" else ""
_NAME = f"tai-godoc{_EXE}"
_BUILD_TIMEOUT = 300.0
_toolchains: dict[tuple[str, ...], Toolchain | None] = {}
_failed: set[Path] = set()
_lock = threading.Lock()


class HelperError(Exception):
    """The helper cannot be built or run; the message says why."""


@attrs.frozen
class Toolchain:
    """The Go toolchain ``go doc`` runs with in a directory: its root, its version, and
    whether its ``go`` command was built with ``-trimpath`` (release builds are; then
    go/build's default context inside ``go doc`` has no GOROOT unless the environment
    sets one, and the helper must be built the same way to behave the same)."""

    goroot: Path
    version: str
    trimmed: bool = True

    @property
    def go(self) -> Path:
        return self.goroot / "bin" / f"go{_EXE}"

    def supported(self) -> bool:
        found = re.search(r"go(\d+)\.(\d+)", self.version)
        return bool(found) and (int(found[1]), int(found[2])) >= MIN_GO  # type: ignore[index]


def _output(args: Sequence[str], cwd: Path, env: Mapping[str, str]) -> str | None:
    try:
        done = subprocess.run(
            list(args), cwd=cwd, env=dict(env), capture_output=True, text=True, timeout=60,
            check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def toolchain(cwd: Path, env: Mapping[str, str]) -> Toolchain | None:
    """The toolchain of ``go`` in ``cwd`` under ``env`` (``None`` when ``go`` fails),
    asked once per process for each directory and setting."""
    go = shutil.which("go", path=env.get("PATH"))
    if go is None:
        return None
    stat = Path(go).stat()
    settings = (env.get(name, "") for name in ("GOTOOLCHAIN", "GOROOT"))
    key = (go, str(stat.st_mtime_ns), str(cwd), *settings)
    with _lock:
        if key in _toolchains:
            return _toolchains[key]
    found = None
    lines = (_output([go, "env", "GOROOT", "GOVERSION"], cwd, env) or "").split("\n")
    if len(lines) >= 2 and lines[0] and lines[1]:
        goroot = Path(lines[0])
        go_binary = str(goroot / "bin" / f"go{_EXE}")
        build_info = _output([go_binary, "version", "-m", go_binary], cwd, env)
        trimmed = build_info is None or "-trimpath=true" in build_info
        found = Toolchain(goroot, lines[1], trimmed)
    with _lock:
        _toolchains[key] = found
    return found


def source_files() -> dict[str, bytes]:
    """The helper's Go source: file name -> bytes."""
    return {path.name: path.read_bytes() for path in sorted(SOURCE.glob("*.go"))}


def binary_path(chain: Toolchain, sources: Mapping[str, bytes] | None = None) -> Path:
    """Where the helper built by ``chain`` from ``sources`` lives."""
    from tai_core.config import user_cache_dir

    digest = hashlib.sha256(f"{chain.version} trimmed={chain.trimmed}".encode())
    for name, data in sorted((sources or source_files()).items()):
        digest.update(b"\0" + name.encode() + b"\0" + hashlib.sha256(data).digest())
    return user_cache_dir() / "bin" / f"godoc-{digest.hexdigest()[:20]}" / _NAME


def build(chain: Toolchain, sources: Mapping[str, bytes] | None = None) -> Path:
    """Build the helper with ``chain`` (see the module docstring), saying on stderr what
    the build does when it takes over a second; its path, or :class:`HelperError`."""
    from tai_changes.goimports import go_build_errors, go_build_line
    from tai_core.progress import Progress, run_counted

    sources = dict(sources or source_files())
    target = binary_path(chain, sources)
    if target.is_file():
        return target
    if not chain.supported():
        raise HelperError(f"{chain.version} is older than go{'.'.join(map(str, MIN_GO))}")
    try:
        target.parent.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".godoc-", dir=target.parent.parent))
    except OSError as error:
        raise HelperError(f"cannot write {target.parent.parent}: {error.strerror}") from None
    try:
        source = staging / "src"
        source.mkdir()
        for name, data in sources.items():
            (source / name).write_bytes(data)
        minimum = ".".join(map(str, MIN_GO))
        (source / "go.mod").write_text(f"module tai/godoc\n\ngo {minimum}\n", encoding="utf-8")
        built = staging / "out" / _NAME
        env = {**os.environ, "GOROOT": str(chain.goroot), "GOTOOLCHAIN": "local",
               "GOWORK": "off", "GOFLAGS": "", "GO111MODULE": "on", "CGO_ENABLED": "0"}  # fmt: skip
        command = [str(chain.go), "build", "-v", *(["-trimpath"] if chain.trimmed else []),
                   "-o", str(built), "."]  # fmt: skip
        try:
            with Progress(f"building the go doc helper with {chain.version}") as progress:
                status, errors = run_counted(
                    command, progress, go_build_line, cwd=source, env=env,
                    timeout=_BUILD_TIMEOUT,
                )  # fmt: skip
        except (OSError, TimeoutError) as error:
            raise HelperError(f"go build: {error}") from None
        if status or not built.is_file():
            raise HelperError(f"go build: {go_build_errors(errors)}")
        try:
            built.parent.rename(target.parent)
        except OSError:
            if not target.is_file():  # not a concurrent first use that won the race
                raise HelperError(f"cannot move the helper to {target.parent}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _ensure(chain: Toolchain) -> Path | None:
    """The helper of ``chain``, built if missing; ``None`` when it cannot be (a failed
    build is not tried again in this process)."""
    target = binary_path(chain)
    if target.is_file():
        return target
    with _lock:
        if target in _failed:
            return None
        try:
            return build(chain)
        except HelperError:
            _failed.add(target)
            return None


def available(cwd: Path, env: Mapping[str, str]) -> tuple[Path, Toolchain] | None:
    """The helper for ``go doc`` in ``cwd``, built when missing; ``None`` when it cannot
    be had (see the module docstring)."""
    chain = toolchain(cwd, env)
    if chain is None or not chain.supported():
        return None
    found = _ensure(chain)
    return (found, chain) if found else None


def install(cwd: Path, envs: Sequence[str] = ()) -> Path:
    """Build the helper for the toolchain of ``cwd`` (``go.envs`` applied) if it is
    missing; its path, or :class:`HelperError` saying why there is none."""
    from tai_go._gocmd import base_environment

    chain = toolchain(cwd.resolve(), base_environment(envs))
    if chain is None:
        raise HelperError("the go command was not found or failed (go env GOROOT GOVERSION)")
    return build(chain)


def prepare(cwd: Path, envs: Sequence[str] = ()) -> None:
    """Build the helper now if it is missing (``tai_prepare_isolation``: inside the
    sandbox the directory of tai's helper programs is read-only); says so when it
    builds, and nothing when it cannot (``go doc`` runs per package then)."""
    from tai_go._gocmd import base_environment

    chain = toolchain(cwd.resolve(), base_environment(envs))
    if chain is None or not chain.supported() or binary_path(chain).is_file():
        return
    print(
        "tai: building the go doc helper into tai's cache (once per Go toolchain)", file=sys.stderr
    )
    _ensure(chain)


def main(argv: list[str] | None = None) -> int:
    """``python -m tai_go._godoc --install``: build the helper for the toolchain
    of the current directory (before tests or a sandbox) and print its path; a Go too
    old for it is not an error (``go doc`` runs per package then)."""
    args = sys.argv[1:] if argv is None else argv
    if args != ["--install"]:
        print("usage: python -m tai_go._godoc --install", file=sys.stderr)
        return 2
    try:
        print(f"go doc helper: {install(Path.cwd())}")
    except HelperError as error:
        chain = toolchain(Path.cwd().resolve(), os.environ)
        print(f"go doc helper: none ({error}); go doc runs per package", file=sys.stderr)
        return 0 if chain is None or not chain.supported() else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
