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


# -- kept between starts (the console script) -------------------------------------------------


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file the readings are kept in, as the console script sets it; each reading of
    the test starts as a new process would (nothing read in this one yet)."""
    from tai_core.plugins import _entry_points

    path = tmp_path / "launch" / "entry-points.marshal"
    monkeypatch.setattr(_entry_points, "_kept_in", None)
    _entry_points.keep_between_starts(str(path))
    _entry_points._read_all.cache_clear()
    yield path
    _entry_points._read_all.cache_clear()


def _fresh_names(group: str = "tai") -> set[str]:
    from tai_core.plugins import _entry_points

    _entry_points._read_all.cache_clear()  # as at the next start
    return {ep.name for ep in find_entry_points(group)}


def _same_mtime(folder: Path, change) -> None:
    """Do ``change`` in ``folder`` and give the folder back its modification time."""
    import os

    before = folder.stat()
    change()
    os.utime(folder, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_the_next_start_takes_the_entry_points_from_the_kept_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: Path
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    early = _install(site, "early", "early")
    assert "early" in _fresh_names() and kept.exists()
    assert kept.stat().st_mode & 0o077 == 0  # the user's alone, as every launch file
    # an edit that leaves the directories as they were is not read: the file answers
    (early / "entry_points.txt").write_text("[tai]\nrenamed = early_plugin\n")
    names = _fresh_names()
    assert "early" in names and "renamed" not in names
    assert {ep.dist.version for ep in find_entry_points("tai") if ep.name == "early"} == {"1.0"}
    # installing a distribution changes its directory: read again, and kept again
    _install(site, "late", "late")
    assert {"renamed", "late"} <= _fresh_names()
    _same_mtime(site, lambda: shutil.rmtree(site / "late-1.0.dist-info"))
    assert "late" in _fresh_names()  # from the file kept at the last reading


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda path: path.write_bytes(b"not marshal"), id="corrupt"),
        pytest.param(lambda path: path.write_bytes(path.read_bytes()[:20]), id="cut short"),
        pytest.param(lambda path: path.chmod(0o666), id="world-writable"),
        pytest.param(
            lambda path: path.write_bytes(
                __import__("marshal").dumps((1, (), [("x", "1", "[tai]\nplanted = x\n")]))
            ),
            id="another sys.path",
        ),
    ],
)
def test_a_kept_file_tai_may_not_trust_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: Path, spoil
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    early = _install(site, "early", "early")
    assert "early" in _fresh_names()
    _same_mtime(site, lambda: (early / "entry_points.txt").write_text("[tai]\nread = x\n"))
    spoil(kept)
    names = _fresh_names()
    assert "read" in names and "planted" not in names  # the files were read
