"""Imports: which project modules a module imports, and what else it needs installed.

An import is resolved against the project's module names: ``import a.b.c`` and
``from a.b import c`` name the deepest project module among ``a.b.c``, ``a.b``, ``a``
(``c`` may be a module or a name in ``a.b``); a relative import is resolved from the
module's package. An import that names no project module is the standard library's when
its top-level name is in :data:`sys.stdlib_module_names` or :data:`OTHER_STDLIB` (the
project may be written for another Python than the one tai runs on), else a third-party
one, named
in the outline with the version the project's environment has installed (:class:`Installed`:
the ``.venv`` or ``venv`` at the project's root, read from its ``*.dist-info`` metadata
without importing anything) and the requirement ``pyproject.toml`` declares for it.
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs

from tai_python import ENVIRONMENTS

#: Standard-library modules the running interpreter may not list: added after Python 3.11
#: (3.14: annotationlib, compression), or removed since (3.12: PEP 632 and the asyncore
#: family; 3.13: the PEP 594 "dead batteries").
OTHER_STDLIB = frozenset({
    "annotationlib", "compression",
    "distutils", "imp", "asynchat", "asyncore", "smtpd",
    "aifc", "audioop", "cgi", "cgitb", "chunk", "crypt", "imghdr", "lib2to3", "mailcap",
    "msilib", "nis", "nntplib", "ossaudiodev", "pipes", "sndhdr", "spwd", "sunau",
    "telnetlib", "uu", "xdrlib",
})  # fmt: skip
_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _candidates(dotted: str) -> list[str]:
    parts = dotted.split(".")
    return [".".join(parts[:end]) for end in range(len(parts), 0, -1)]


def resolve_imports(
    name: str, package: bool, imports: Iterable[Sequence[Any]], project: frozenset[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The project modules and the third-party top-level names a module imports."""
    inside: set[str] = set()
    outside: set[str] = set()
    base_parts = name.split(".") if package else name.split(".")[:-1]
    for level, written, names in imports:
        module = written
        if level:
            keep = len(base_parts) - (level - 1)
            if keep < 0:
                continue
            prefix = ".".join(base_parts[:keep])
            module = f"{prefix}.{written}" if prefix and written else prefix or written
        if not module:
            continue
        wanted = [f"{module}.{n}" for n in names if n != "*"] + [module]
        found = [next((c for c in _candidates(w) if c in project), None) for w in wanted]
        hits = {f for f in found if f is not None and f != name}
        if hits or any(f == name for f in found):
            inside |= hits
            continue
        top = module.split(".")[0]
        stdlib = top in sys.stdlib_module_names or top in OTHER_STDLIB or top == "__future__"
        if not level and not stdlib:
            outside.add(top)
    return tuple(sorted(inside)), tuple(sorted(outside))


def _site_packages(root: Path) -> list[Path]:
    return sorted(
        path
        for venv in ENVIRONMENTS
        for path in (root / venv).glob("lib/python*/site-packages")
        if path.is_dir()
    )


def _metadata(info: Path) -> tuple[str, str] | None:
    """``(name, version)`` from a ``*.dist-info`` directory's METADATA headers."""
    try:
        head = (info / "METADATA").read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return None
    fields = dict(
        line.split(": ", 1) for line in head.split("\n\n", 1)[0].splitlines() if ": " in line
    )
    if "Name" not in fields or "Version" not in fields:
        return None
    return fields["Name"].strip(), fields["Version"].strip()


def _top_levels(info: Path) -> set[str]:
    try:
        listed = (info / "top_level.txt").read_text(encoding="utf-8").split()
    except OSError:
        listed = []
    if listed:
        return set(listed)
    try:
        record = (info / "RECORD").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    tops = set()
    for line in record.splitlines():
        first = line.split(",", 1)[0].split("/", 1)[0]
        if first and not first.endswith((".dist-info", ".data", ".pth")) and first != "..":
            tops.add(first.removesuffix(".py"))
    return tops - {"__pycache__"}


@attrs.frozen
class Installed:
    """What the project's environment holds and its ``pyproject.toml`` requires."""

    environment: str
    #: normalized distribution name -> (name, version, dist-info directory)
    dists: dict[str, tuple[str, str, Path]] = attrs.field(factory=dict, repr=False)
    #: normalized distribution name -> the requirement as declared
    required: dict[str, str] = attrs.field(factory=dict)
    #: Why ``pyproject.toml`` could not be read (its requirements are then unknown).
    problem: str = ""

    @classmethod
    def of(cls, root: Path) -> Installed:
        """Read the environment at ``root`` (none: versions are unknown)."""
        dists = {}
        sites = _site_packages(root)
        for site in sites:
            for info in sorted(site.glob("*.dist-info")):
                found = _metadata(info)
                if found:
                    dists[_normal(found[0])] = (*found, info)
        where = str(sites[0].relative_to(root)) if sites else ""
        required, problem = _required(root)
        return cls(where, dists, required, problem)

    def describe(self, top: str) -> str:
        """``top`` with its distribution's installed version and declared requirement."""
        key = _normal(top)
        dist = self.dists.get(key) or next(
            (d for d in self.dists.values() if top in _top_levels(d[2])), None
        )
        key = _normal(dist[0]) if dist else key
        words = [top]
        if dist:
            words.append(f"{dist[0]} {dist[1]} installed" if _normal(dist[0]) != _normal(top)
                         else f"{dist[1]} installed")  # fmt: skip
        elif self.environment:
            words.append(f"not installed in {self.environment}")
        required = self.required.get(key)
        if required:
            words.append(f"required as {required!r}")
        return " — ".join(words)


def _required(root: Path) -> tuple[dict[str, str], str]:
    """The requirements ``[project]`` declares (dependencies and optional ones), and why
    ``pyproject.toml`` could not be read when it could not."""
    path = root / "pyproject.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, ""
    except (OSError, ValueError) as error:
        return (
            {},
            f"pyproject.toml cannot be read ({error}): the project's requirements are unknown",
        )
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    declared = list(project.get("dependencies") or [])
    for group in (project.get("optional-dependencies") or {}).values():
        declared += list(group or [])
    found = {}
    for requirement in declared:
        match = _REQUIREMENT_NAME.match(str(requirement))
        if match:
            found.setdefault(_normal(match.group(1)), str(requirement))
    return found, ""
