"""Pinned public code nobody here wrote: Go modules through the Go module proxy, Python
source distributions from the package index (DESIGN.md §9: the pins are kept here, in one
place).

``fetch(name, into)`` runs ``go mod download -json MODULE@VERSION`` (a no-op when the
module cache already holds it), copies the module's directory to ``into/NAME`` with write
permission (the module cache is read-only, and a load may write ``go.sum``), and downloads
the module's own dependencies there, so a ``go list`` of the copy needs no network. The
suite copies each module once per session (:func:`pinned` in ``tests/go/conftest.py``);
the benchmarks use the same function.

``fetch_sdist(name, into)`` downloads the pinned source distribution of a Python project
from the package index once into tai's development cache (``~/.cache/tai-dev/sdists``,
checked against its pinned sha256 each time it is used) and unpacks it to ``into/NAME``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tarfile
import urllib.request
from pathlib import Path

#: The pinned modules: a short name -> (module path, version).
PINNED = {
    "cobra": ("github.com/spf13/cobra", "v1.10.2"),
    "tools": ("golang.org/x/tools", "v0.39.0"),
}

#: The pinned Python source distributions: a short name -> (URL, sha256).
PINNED_SDISTS = {
    "attrs": (
        "https://files.pythonhosted.org/packages/5a/b0/1367933a8532ee6ff8d63537de4f1177af4bff9f3e"
        "829baf7331f595bb24/attrs-25.3.0.tar.gz",
        "75d7cefc7fb576747b2c81b4442d4d4a1ce0900973527c011d1030fd3bf4af1b",
    ),
    "click": (
        "https://files.pythonhosted.org/packages/b9/2e/0090cbf739cee7d23781ad4b89a9894a41538e4f"
        "cf4c31dcdd705b78eb8b/click-8.1.8.tar.gz",
        "ed53c9d8990d83c2a27deae68e4ee337473f6330c040a31d4225c9574d16096a",
    ),
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


def _sdist_archive(name: str) -> Path:
    """The pinned archive of ``name`` in the development cache, downloaded when missing;
    raises ``RuntimeError`` when its sha256 is not the pinned one."""
    url, digest = PINNED_SDISTS[name]
    cache = Path(os.environ.get("TAI_DEV_CACHE") or Path.home() / ".cache" / "tai-dev") / "sdists"
    archive = cache / url.rsplit("/", 1)[1]
    if not archive.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        partial = archive.with_suffix(".partial")
        with urllib.request.urlopen(url, timeout=120) as response:
            partial.write_bytes(response.read())
        partial.rename(archive)
    found = hashlib.sha256(archive.read_bytes()).hexdigest()
    if found != digest:
        archive.unlink()
        raise RuntimeError(f"{archive.name}: sha256 {found}, pinned {digest}; removed, try again")
    return archive


def fetch_sdist(name: str, into: Path) -> Path:
    """A writable, unpacked copy of the pinned source distribution ``name`` under ``into``
    (its top directory, holding ``pyproject.toml``); reused when it exists."""
    target = into / name
    if target.is_dir():
        return target
    partial = into / f".{name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    with tarfile.open(_sdist_archive(name)) as archive:
        archive.extractall(partial, filter="data")
    (top,) = partial.iterdir()
    top.rename(target)
    partial.rmdir()
    return target
