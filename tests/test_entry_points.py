"""The fast entry-point reader agrees with importlib.metadata on this environment."""

from __future__ import annotations

from importlib import metadata

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
