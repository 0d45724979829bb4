"""Secret files never reach an outline or a py-src answer; the outline cache is JSON keyed
by content, and a forged or broken entry never breaks a load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tai_core.plugins import PluginHost
from tai_core.testing import project
from tai_python import _cache
from tests.python.conftest import collect, text_of
from tests.python.test_py_src import fetch

KEY = "AKIA" + "QWERTYUIOPASDFGH"  # an AWS access key id, split so this file holds none


def test_a_module_holding_a_credential_is_withheld(host: PluginHost, basic: Path) -> None:
    project(basic, {
        "src/shop/settings.py": f'"""Settings."""\n\nAWS_KEY = "{KEY}"\n',
        "src/shop/.env": "TOKEN=x\n", "src/shop/id_rsa": "key\n",
    })  # fmt: skip
    from tai_core.context import hook_check

    secret = hook_check(host.pm.hook, {})
    parts = collect(basic, secret=secret)
    text = text_of(parts)
    assert KEY not in text
    assert "focus module shop.settings" not in text
    names = {part.path: part.withheld for part in parts if part.withheld}
    assert "src/shop/settings.py" in names and "src/shop/id_rsa" in names
    answer = fetch(host, basic, "shop.settings\nshop.settings.AWS_KEY").text
    assert KEY not in answer and "not found" in answer


def test_warm_loads_read_the_cache_and_never_parse(
    basic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = text_of(collect(basic))

    def refuse(data: bytes, filename: str) -> None:
        raise AssertionError(f"parsed {filename} again")

    monkeypatch.setattr(_cache, "summarize", refuse)
    assert text_of(collect(basic)) == cold


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache of the test's own (the others' entries stay whole)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "own-cache"))


@pytest.mark.usefixtures("own_cache")
def test_broken_cache_entries_are_parsed_afresh(basic: Path) -> None:
    cold = text_of(collect(basic))
    entries = [p for p in _cache._cache_dir().rglob("*") if p.is_file()]
    assert entries
    for entry in entries:
        entry.write_text(json.dumps(["not", "a", "summary"]) if entry.stat().st_size % 2 else "{")
    assert text_of(collect(basic)) == cold


@pytest.mark.usefixtures("own_cache")
def test_the_cache_holds_json_only(basic: Path) -> None:
    collect(basic)
    for entry in (p for p in _cache._cache_dir().rglob("*") if p.is_file()):
        assert isinstance(json.loads(entry.read_text()), dict)
