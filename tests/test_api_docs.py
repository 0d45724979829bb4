"""Every exported contract is documented: a docstring for each name the public modules
export (and each public method of an exported class), and docs/plugin-api.md generated
from them and up to date."""

from __future__ import annotations

import subprocess
import sys

from .conftest import REPO

sys.path.insert(0, str(REPO / "scripts"))
import api_docs  # the script lives beside the other generators


def test_every_exported_name_has_a_docstring() -> None:
    assert api_docs.undocumented() == []


def test_an_undocumented_export_is_caught() -> None:
    from tai_core import testing

    def helper() -> None:
        pass

    testing.helper = helper  # type: ignore[attr-defined]
    testing.__all__.append("helper")
    try:
        assert api_docs.undocumented() == ["tai_core.testing.helper"]
    finally:
        testing.__all__.remove("helper")
        del testing.helper  # type: ignore[attr-defined]


def test_the_reference_is_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "api_docs.py"), "--check"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
