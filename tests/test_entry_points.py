"""The fast entry-point reader agrees with importlib.metadata on this environment."""

from __future__ import annotations

import shutil
from importlib import metadata
from pathlib import Path

import pytest

from tai_core.plugins._entry_points import distribution_version, find_entry_points


@pytest.mark.parametrize("group", ["tai", "console_scripts", "pytest11"])
def test_same_entry_points_as_importlib(group: str) -> None:
    ours = sorted((ep.name, ep.value, ep.dist.name) for ep in find_entry_points(group))
    theirs = sorted(
        (ep.name, ep.value, ep.dist.name.replace("_", "-").lower())
        for ep in metadata.entry_points(group=group)
    )
    assert [(n, v, d.lower()) for n, v, d in ours] == theirs


def test_versions_match() -> None:
    for ep in find_entry_points("tai"):
        assert ep.dist.version == metadata.version(ep.dist.name)
    assert distribution_version("tai-core") == metadata.version("tai-core")
    assert distribution_version("TAI_core") == metadata.version("tai-core")
    assert distribution_version("no-such-distribution-here") is None


def test_load_returns_the_module_or_attribute() -> None:
    (shell,) = [ep for ep in find_entry_points("tai") if ep.name == "shell"]
    module = shell.load()
    assert module.__name__ == "tai_kind_shell"
    scripts = {ep.name: ep for ep in find_entry_points("console_scripts")}
    assert callable(scripts["tai"].load())


def _install(folder: Path, name: str, entry: str) -> Path:
    """A distribution ``name`` in ``folder`` whose only entry point is ``entry``."""
    metadata_dir = folder / f"{name}-1.0.dist-info"
    metadata_dir.mkdir()
    (metadata_dir / "entry_points.txt").write_text(f"[tai]\n{entry} = {name}_plugin\n")
    return metadata_dir


def test_installing_or_removing_a_distribution_is_seen_by_the_next_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    first = _install(tmp_path, "early", "early")
    assert "early" in {ep.name for ep in find_entry_points("tai")}
    _install(tmp_path, "late", "late")
    assert {"early", "late"} <= {ep.name for ep in find_entry_points("tai")}
    shutil.rmtree(first)
    names = {ep.name for ep in find_entry_points("tai")}
    assert "late" in names and "early" not in names
    monkeypatch.syspath_prepend(str(tmp_path / "elsewhere"))
    assert "late" in {ep.name for ep in find_entry_points("tai")}
