"""Each of tai's distributions declares what it imports: a plugin installed alone (``uv pip
install tai-core tai-kind-shell``) must not fail on an import its metadata never asked
for, and must not pull what it does not use. Checked on the import graph grimp builds of
the installed sources (imports for type checkers only left out) against each
distribution's ``Requires-Dist``."""

from __future__ import annotations

import sys
import tomllib
from importlib import metadata

import grimp
import pytest
from packaging.requirements import Requirement

from .conftest import REPO

#: Each workspace member's top-level package (``src/<package>``) and its distribution.
PACKAGES = {
    folder.name: tomllib.loads((folder.parent.parent / "pyproject.toml").read_text())["project"][
        "name"
    ]
    for pattern in ("tai_core/src/*", "tai_sandbox/src/*", "libs/*/src/*", "plugins/*/src/*")
    for folder in REPO.glob(pattern)
    if (folder / "__init__.py").exists()
}


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(
        *PACKAGES, include_external_packages=True, exclude_type_checking_imports=True
    )


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_a_distribution_declares_what_it_imports(graph: grimp.ImportGraph, package: str) -> None:
    distribution = PACKAGES[package]
    declared = {_normal(Requirement(line).name) for line in metadata.requires(distribution) or []}
    owners = {**metadata.packages_distributions(), **{p: [d] for p, d in PACKAGES.items()}}
    imported: set[str] = set()
    for module in graph.find_descendants(package) | {package}:
        for target in graph.find_modules_directly_imported_by(module):
            top = target.partition(".")[0]
            if top == package or top in sys.stdlib_module_names:
                continue
            imported.add(_normal(owners.get(top, [top])[0]))
    assert sorted(imported - declared) == [], f"{distribution} imports undeclared packages"
