"""Pinned public Go modules nobody here wrote, fetched through the Go module proxy.

``fetch(name, into)`` runs ``go mod download -json MODULE@VERSION`` (a no-op when the
module cache already holds it), copies the module's directory to ``into/NAME`` with write
permission (the module cache is read-only, and a load may write ``go.sum``), and downloads
the module's own dependencies there, so a ``go list`` of the copy needs no network. The
suite copies each module once per session (:func:`pinned` in ``tests/go/conftest.py``);
the benchmarks use the same function.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

#: The pinned modules: a short name -> (module path, version).
PINNED = {
    "cobra": ("github.com/spf13/cobra", "v1.10.2"),
    "tools": ("golang.org/x/tools", "v0.39.0"),
}


def download(module: str, version: str) -> Path:
    """The module cache directory of ``module@version`` (downloaded when missing)."""
    done = subprocess.run(
        ["go", "mod", "download", "-json", f"{module}@{version}"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    info = json.loads(done.stdout or "{}")
    if done.returncode or "Dir" not in info:
        reason = info.get("Error") or done.stderr
        raise RuntimeError(f"go mod download {module}@{version}: {reason}")
    return Path(info["Dir"])


def fetch(name: str, into: Path) -> Path:
    """A writable copy of the pinned module ``name`` under ``into``, dependencies
    downloaded; reused when it exists."""
    module, version = PINNED[name]
    target = into / name
    if (target / "go.mod").is_file():
        return target
    source = download(module, version)
    partial = into / f".{name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(source, partial)
    for path in (partial, *partial.rglob("*")):
        path.chmod(path.stat().st_mode | 0o200)
    subprocess.run(
        ["go", "mod", "download"], cwd=partial, check=True, capture_output=True, timeout=600
    )
    partial.rename(target)
    return target
