"""attrs' generated code kept between starts (``tai_core.cli._attrs_code``).

Each check runs a fresh interpreter, as the console script does: the module replaces a
function of attrs for the whole process, which a test worker must not have. The classes
below cover what attrs generates differently: frozen (with the per-process type hash),
mutable (no hash), a cached hash, a validator, a factory, and a name defined twice.
"""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import run_tai

CLASSES = """
import json, sys
from tai_core.cli import _attrs_code
{before}
installed = _attrs_code.install(sys.argv[1])
import attrs

@attrs.frozen
class Point:
    x: int
    y: int = 0

@attrs.frozen
class Other:
    x: int
    y: int = 0

@attrs.define
class Mutable:
    items: list = attrs.field(factory=list)

@attrs.frozen(cache_hash=True)
class Named:
    name: str = attrs.field(validator=attrs.validators.instance_of(str))

First = Point

@attrs.frozen
class Point:  # the same name again: attrs files its source under "Point-1"
    z: int

try:
    Named(1)
    refused = False
except TypeError:
    refused = True
try:
    First(1).x = 2
    frozen = False
except attrs.exceptions.FrozenInstanceError:
    frozen = True
mutable = Mutable()
mutable.items.append(1)
print(json.dumps({{
    "installed": installed,
    "counts": _attrs_code.counts(),
    "equal": First(1, 2) == First(1, 2) and First(1) != First(2),
    "hash": hash(First(1, 2)) == hash(First(1, 2)) and hash(Named("a")) == hash(Named("a")),
    "types apart": hash(First(1)) != hash(Other(1)),
    "repr": [repr(First(1, 2)), repr(Point(3)), repr(mutable), repr(Named("a"))],
    "unhashable": Mutable.__hash__ is None,
    "frozen": frozen,
    "validator": refused,
}}))
"""


def define(cache: Path, before: str = "") -> dict:
    """Define the classes in a fresh interpreter with the cache file ``cache``."""
    done = subprocess.run(
        [sys.executable, "-c", CLASSES.format(before=before), str(cache)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)


def entries(cache: Path) -> dict:
    return marshal.loads(cache.read_bytes())[2]


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "launch" / "attrs.marshal"


def same_behaviour(first: dict, second: dict) -> None:
    for key in ("equal", "hash", "types apart", "repr", "unhashable", "frozen", "validator"):
        assert first[key] == second[key], key
    assert first["equal"] and first["hash"] and first["types apart"] and first["frozen"]
    assert first["validator"] and first["unhashable"]
    assert first["repr"][:2] == ["Point(x=1, y=2)", "Point(z=3)"]


def test_a_second_start_takes_every_class_from_the_file(cache: Path) -> None:
    first = define(cache)
    assert first["installed"] and first["counts"] == [0, 5]
    assert cache.exists() and len(entries(cache)) == 5
    assert cache.stat().st_mode & 0o077 == 0  # the user's alone
    second = define(cache)
    assert second["counts"] == [5, 0]
    same_behaviour(first, second)
    assert [path.name for path in cache.parent.iterdir()] == [cache.name]  # no temporary


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda path: path.write_bytes(b"not marshal"), id="corrupt"),
        pytest.param(lambda path: path.write_bytes(path.read_bytes()[:100]), id="cut short"),
        pytest.param(
            lambda path: path.write_bytes(marshal.dumps((1, "2.7.18", entries(path)))),
            id="another interpreter",
        ),
        pytest.param(
            lambda path: path.write_bytes(
                marshal.dumps((1, sys.version, dict.fromkeys(entries(path), b"\xffcut")))
            ),
            id="entries spoilt",
        ),
        pytest.param(lambda path: path.chmod(0o620), id="group-writable"),
        pytest.param(lambda path: path.chmod(0o602), id="world-writable"),
    ],
)
def test_a_file_tai_may_not_trust_is_not_used_and_is_replaced(cache: Path, spoil) -> None:
    define(cache)
    spoil(cache)
    again = define(cache)
    assert again["counts"] == [0, 5]
    same_behaviour(define(cache), again)
    assert define(cache)["counts"] == [5, 0]  # written anew, the user's alone


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_a_file_of_another_user_is_not_used(cache: Path) -> None:
    define(cache)
    os.chown(cache, 65534, 65534)
    assert define(cache)["counts"] == [0, 5]


def test_an_attrs_of_another_shape_is_left_as_it_is(cache: Path) -> None:
    other_shape = (
        "from attr import _make\n"
        "original = _make._compile_and_eval\n"
        "def changed(source, globs, locs=None, filename=''):\n"
        "    original(source, globs, locs, filename)\n"
        "_make._compile_and_eval = changed\n"
    )
    result = define(cache, before=other_shape)
    assert not result["installed"] and result["counts"] == [0, 0]
    same_behaviour(result, define(cache))
    assert entries(cache)  # the run without the replacement wrote nothing, the later one did


def test_the_file_keeps_the_latest_entries_only(cache: Path) -> None:
    small = "_attrs_code.MAX_ENTRIES = 3"
    define(cache, before=small)
    kept = [filename for _, filename in entries(cache)]
    assert kept == [
        "<attrs generated methods __main__.Mutable>",
        "<attrs generated methods __main__.Named>",
        "<attrs generated methods __main__.Point-1>",
    ]


# -- the console script ----------------------------------------------------------------------


def test_a_run_keeps_its_classes_before_the_sandbox_is_entered(
    tmp_path: Path, isolated_env: dict[str, str]
) -> None:
    """The run's modules are imported before the sandbox, where the file can be written:
    inside, the launch directory is read-only, and the events would be compiled anew at
    every start."""
    env = {**isolated_env, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    work = tmp_path / "work"
    work.mkdir()
    (work / ".model.replay").write_text("@@@ reply\nHello.\n")
    result = run_tai("next", "-model", "replay:.model.replay", "chat", "hi", cwd=work, env=env)
    assert result.returncode == 0, result.stderr
    (cache,) = (tmp_path / "cache" / "tai" / "launch").glob("attrs-*.marshal")
    names = {filename for _, filename in entries(cache)}
    assert "<attrs generated methods tai_core.events.TextReceived>" in names
    assert "<attrs generated methods tai_core.runtime._commands.Submit>" in names
