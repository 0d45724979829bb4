"""Secret files never reach an outline or a py-src answer; the outline cache is JSON keyed
by content, and a forged or broken entry never breaks a load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
    (cache,) = _cache._cache_file(basic.resolve()).parent.glob("*.json")
    entries = json.loads(cache.read_text())
    shapes = [
        ["not", "a", "summary"], {"decls": "no"}, {"error": 3},
        {"decls": [{"kind": "def"}], "imports": [], "tests": []},  # a declaration cut short
        {"decls": [], "imports": [[0, 1, []]], "tests": []},
        {"decls": [], "imports": [], "tests": [None]},
    ]  # fmt: skip
    forged = {key: shapes[i % len(shapes)] for i, key in enumerate(entries)}
    cache.write_text(json.dumps(forged))
    assert text_of(collect(basic)) == cold
    cache.write_text("{ not json")
    assert text_of(collect(basic)) == cold
    assert json.loads(cache.read_text()).keys() == entries.keys()  # written whole again


@pytest.mark.usefixtures("own_cache")
def test_the_cache_holds_json_only_and_follows_the_project(basic: Path) -> None:
    collect(basic)
    (cache,) = _cache._cache_file(basic.resolve()).parent.glob("*.json")
    entries = json.loads(cache.read_text())
    assert all(isinstance(entry, dict) for entry in entries.values())
    (basic / "src/shop/prices.py").write_text("def price_of(item):\n    return 1\n")
    collect(basic)
    assert len(json.loads(cache.read_text())) == len(entries)  # the old entry is gone


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "decls",
                    "kind",
                    "name",
                    "sig",
                    "doc",
                    "children",
                    "imports",
                    "tests",
                    "error",
                    "all",
                    "decorators",
                    "line",
                ]
            ),
            inner,
            max_size=6,
        )
    ),
    max_leaves=12,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(entry=JSON)
def test_any_json_in_the_cache_never_breaks_a_load(
    basic: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: object
) -> None:
    """An entry of a summary's shape is used as it is (a forged one misleads that outline:
    accepted, see tai_python._cache); any other entry is parsed afresh."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "fuzzed-cache"))
    cache = _cache._cache_file(basic.resolve())
    cache.unlink(missing_ok=True)  # the examples share the directory: start cold each time
    cold = text_of(collect(basic))
    keys = json.loads(cache.read_text()).keys()
    cache.write_text(json.dumps(dict.fromkeys(keys, entry)))
    warm = text_of(collect(basic))
    if not _cache._is_summary(entry):
        assert warm == cold


def test_a_link_to_a_credential_file_is_withheld_by_its_target(
    host: PluginHost, basic: Path, tmp_path: Path
) -> None:
    credentials = tmp_path / "home/.aws/credentials"
    credentials.parent.mkdir(parents=True)
    credentials.write_text("[default]\naws_secret_access_key = abc\n")
    (basic / "src/shop/notes.py").symlink_to(credentials)
    from tai_core.context import hook_check

    parts = collect(basic, secret=hook_check(host.pm.hook, {}))
    assert "aws_secret_access_key" not in text_of(parts)
    assert any(part.withheld and part.path == "src/shop/notes.py" for part in parts)


def _cache_of(root: Path) -> Path:
    return _cache._cache_file(root.resolve())


@pytest.mark.usefixtures("own_cache")
def test_each_project_has_its_own_cache_file_written_only_when_it_changes(
    basic: Path, tmp_path: Path
) -> None:
    cold = text_of(collect(basic))
    assert "def price_of(item: str) -> float:" in cold  # what the cache gave is the outline
    other = project(tmp_path / "other", {"setup.py": "", "tool.py": "def run(): ...\n"})
    collect(other)
    assert _cache_of(basic) != _cache_of(other) and _cache_of(other).is_file()
    assert _cache_of(basic) == _cache._cache_file(basic.resolve())  # stable
    before = _cache_of(basic).stat().st_mtime_ns
    _cache_of(basic).touch()
    stamp = _cache_of(basic).stat().st_mtime_ns
    assert text_of(collect(basic)) == cold
    assert _cache_of(basic).stat().st_mtime_ns == stamp >= before  # nothing new: not written
    (basic / "scripts/tool.py").unlink()  # a module gone, nothing to parse: the file follows
    collect(basic)
    assert len(json.loads(_cache_of(basic).read_text())) == len(
        [p for p in basic.rglob("*.py") if ".venv" not in p.parts]
    )


@pytest.mark.usefixtures("own_cache")
def test_a_cached_parse_error_is_used_and_not_parsed_again(
    basic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (basic / "src/shop/broken.py").write_text("def f(:\n")
    cold = text_of(collect(basic))
    assert "(does not parse: line 1:" in cold

    def refuse(data: bytes, filename: str) -> None:
        raise AssertionError(f"parsed {filename} again")

    monkeypatch.setattr(_cache, "summarize", refuse)
    assert text_of(collect(basic)) == cold


VALID = {"decls": [], "imports": [], "import_lines": [], "tests": []}


@pytest.mark.usefixtures("own_cache")
@pytest.mark.parametrize(
    "forged",
    [
        [],  # not an object at all
        {"*": {**VALID, "decls": [{"kind": "def", "name": "f", "sig": "def f():",
                                   "decorators": [1]}]}},
        {"*": {**VALID, "decls": [{"kind": "class", "name": "C", "sig": "class C:",
                                   "children": "x"}]}},
        {"*": {**VALID, "decls": [{"kind": "class", "name": "C", "sig": "class C:",
                                   "children": [{"kind": "def"}]}]}},
        {"*": {**VALID, "decls": [{"kind": "def", "name": "f", "sig": "def f():",
                                   "decorators": 5}]}},  # not a list: was a TypeError
        {"*": {**VALID, "imports": [[0, "m", [1]]]}},
        {"*": {**VALID, "imports": [[0, "m", 5]]}},
        {"*": {**VALID, "import_lines": [None]}},
    ],
)  # fmt: skip
def test_forged_shapes_are_parsed_afresh(basic: Path, forged: object) -> None:
    assert _cache._is_summary(VALID)  # each shape below breaks one rule of a valid one
    cold = text_of(collect(basic))
    cache = _cache_of(basic)
    keys = json.loads(cache.read_text()).keys()
    if isinstance(forged, dict):
        forged = dict.fromkeys(keys, forged["*"])
    cache.write_text(json.dumps(forged))
    assert text_of(collect(basic)) == cold


@pytest.mark.slow
@pytest.mark.usefixtures("own_cache")
def test_many_misses_are_parsed_in_worker_processes_alike(
    basic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    serial = text_of(collect(basic))
    _cache_of(basic).unlink()
    monkeypatch.setattr(_cache, "PARALLEL_FROM", 2)
    monkeypatch.setattr(_cache.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(_cache.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    started = []
    import concurrent.futures

    original = concurrent.futures.ProcessPoolExecutor

    def counting(*args: object, **kwargs: object) -> object:
        started.append(args)
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", counting)
    assert text_of(collect(basic)) == serial
    assert started and started[0][0] == 1  # one worker besides the calling process
