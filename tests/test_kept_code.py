"""What a start compiles, kept between starts (``tai_core.cli._kept_code``): attrs' and
dataclasses' generated methods, regular expressions.

Each check runs a fresh interpreter, as the console script does: the module replaces
functions of attrs, dataclasses and re for the whole process, which a test worker must not
have. The classes below cover what attrs generates differently: frozen (with the
per-process type hash), mutable (no hash), a cached hash, a validator, a factory, and a
name defined twice; the patterns what ``re`` compiles differently (named groups, inline
and given flags, bytes, a look-behind).
"""

from __future__ import annotations

import json
import json.encoder
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tai_core.cli._kept_code import FORMAT

from .conftest import run_tai

CLASSES = """
import json, sys
from tai_core.cli import _kept_code
{before}
installed = "attrs" in _kept_code.install(sys.argv[1])
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
    "counts": _kept_code.counts("attrs"),
    "equal": First(1, 2) == First(1, 2) and First(1) != First(2),
    "hash": hash(First(1, 2)) == hash(First(1, 2)) and hash(Named("a")) == hash(Named("a")),
    "types apart": hash(First(1)) != hash(Other(1)),
    "repr": [repr(First(1, 2)), repr(Point(3)), repr(mutable), repr(Named("a"))],
    "unhashable": Mutable.__hash__ is None,
    "frozen": frozen,
    "validator": refused,
    "finders": [type(finder).__name__ for finder in sys.meta_path],
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


def ours(cache: Path) -> list[str]:
    """The file names of the kept attrs code of the test's own classes, in the file's order."""
    return [name for kind, _, name in entries(cache) if kind == "attrs" and "__main__" in name]


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "launch" / "code.marshal"


def same_behaviour(first: dict, second: dict) -> None:
    for key in ("equal", "hash", "types apart", "repr", "unhashable", "frozen", "validator"):
        assert first[key] == second[key], key
    assert first["equal"] and first["hash"] and first["types apart"] and first["frozen"]
    assert first["validator"] and first["unhashable"]
    assert first["repr"][:2] == ["Point(x=1, y=2)", "Point(z=3)"]


def test_a_second_start_takes_every_class_from_the_file(cache: Path) -> None:
    first = define(cache)
    hits, compiled = first["counts"]
    assert first["installed"] and hits == 0 and compiled > 5  # attrs' own validators too
    assert len(ours(cache)) == 5
    assert "<attrs generated methods attr.validators._InstanceOfValidator>" in {
        name for _, _, name in entries(cache)
    }  # kept from attrs' own import on: the file was installed before attrs was imported
    assert cache.stat().st_mode & 0o077 == 0  # the user's alone
    assert first["finders"].count("_AfterImport") == 1  # dataclasses' (never imported)
    second = define(cache)
    assert second["counts"] == [compiled, 0]
    same_behaviour(first, second)
    assert [path.name for path in cache.parent.iterdir()] == [cache.name]  # no temporary


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(lambda path: path.write_bytes(b"not marshal"), id="corrupt"),
        pytest.param(lambda path: path.write_bytes(path.read_bytes()[:100]), id="cut short"),
        pytest.param(
            lambda path: path.write_bytes(marshal.dumps((FORMAT, "2.7.18", entries(path)))),
            id="another interpreter",
        ),
        pytest.param(
            lambda path: path.write_bytes(
                marshal.dumps((FORMAT, sys.version, dict.fromkeys(entries(path), b"\xffcut")))
            ),
            id="entries spoilt",
        ),
        pytest.param(lambda path: path.chmod(0o620), id="group-writable"),
        pytest.param(lambda path: path.chmod(0o602), id="world-writable"),
    ],
)
def test_a_file_tai_may_not_trust_is_not_used_and_is_replaced(cache: Path, spoil) -> None:
    _, compiled = define(cache)["counts"]
    spoil(cache)
    again = define(cache)
    assert again["counts"] == [0, compiled]
    same_behaviour(define(cache), again)
    assert define(cache)["counts"] == [compiled, 0]  # written anew, the user's alone


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_a_file_of_another_user_is_not_used(cache: Path) -> None:
    _, compiled = define(cache)["counts"]
    os.chown(cache, 65534, 65534)
    assert define(cache)["counts"] == [0, compiled]


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


def test_the_file_keeps_the_latest_entries_only(cache: Path, tmp_path: Path) -> None:
    define(cache)
    every = list(entries(cache))  # in the order last used
    small = tmp_path / "small" / "code.marshal"
    define(small, before="_kept_code.MAX_ENTRIES = 3")
    assert list(entries(small)) == every[-3:]
    assert len(every) > 3 and ours(cache)[-1] == "<attrs generated methods __main__.Point-1>"


# -- dataclasses and regular expressions ------------------------------------------------------

OTHERS = """
import json, sys
from tai_core.cli import _kept_code
hooked = _kept_code.install(sys.argv[1])
import dataclasses, re

@dataclasses.dataclass(frozen=True)
class Pair:
    left: int
    right: str = "r"

patterns = [
    re.compile(r"(?P<key>[a-z]+)=(?P<value>\\d+)"),
    re.compile(r"(?i)hello\\s+(world|there)"),
    re.compile(r"^\\s*#", re.MULTILINE),
    re.compile(rb"\\x00(?P<tag>..)"),
    re.compile(r"(?<=\\$)\\w+"),
    re.compile(r"hello"),
    re.compile(r"hello", re.IGNORECASE),  # the same pattern: its flags make it another
]
texts = ["a=1 b=22", "HeLLo   There", "x\\n  # c", b"\\x00ab", "cost $usd", "Hello", "Hello"]
found = [
    [{k: v.decode() if isinstance(v, bytes) else v for k, v in m.groupdict().items()}
     or list(m.groups()) or m.group(0) for m in p.finditer(t)]
    for p, t in zip(patterns, texts)
]
try:
    Pair(1).left = 2
    frozen = False
except dataclasses.FrozenInstanceError:
    frozen = True
print(json.dumps({
    "hooked": hooked,
    "exec": _kept_code.counts("exec"),
    "re": _kept_code.counts("re"),
    "found": found,
    "flags": [p.flags for p in patterns],
    "groups": [p.groups for p in patterns],
    "pair": [repr(Pair(1)), Pair(1) == Pair(1), Pair(1) != Pair(2), hash(Pair(1)) == hash(Pair(1))],
    "frozen": frozen,
    "annotation": repr(Pair.__init__.__annotations__["left"]),
    "finders": [type(f).__name__ for f in sys.meta_path],
}))
"""


def others(cache: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", OTHERS, str(cache)],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def same_results(first: dict, second: dict) -> None:
    for key in ("found", "flags", "groups", "pair", "frozen", "annotation"):
        assert first[key] == second[key], key
    # as dataclasses compiles it: not with the string annotations of _kept_sources' future
    assert first["annotation"] == "<class 'int'>"
    assert first["found"] == [
        [{"key": "a", "value": "1"}, {"key": "b", "value": "22"}],
        [["There"]],
        ["  #"],
        [{"tag": "ab"}],
        ["usd"],
        [],
        ["Hello"],
    ]
    assert first["pair"] == ["Pair(left=1, right='r')", True, True, True] and first["frozen"]


def test_dataclasses_and_patterns_are_taken_from_the_file_at_the_second_start(
    cache: Path,
) -> None:
    first = others(cache)
    assert set(first["hooked"]) == {"attrs", "dataclasses", "re"}
    made_exec, made_re = first["exec"][1], first["re"][1]
    assert first["exec"][0] == 0 and made_exec >= 3  # __repr__, __eq__, frozen __setattr__...
    assert first["re"][0] == 0 and made_re >= 5
    # dataclasses' is gone once it was imported; attrs' waits, this script never imports it
    assert first["finders"].count("_AfterImport") == 1
    second = others(cache)
    assert second["exec"] == [made_exec, 0] and second["re"] == [made_re, 0]
    same_results(first, second)


def test_a_spoilt_program_is_compiled_again(cache: Path) -> None:
    """The regular-expression engine refuses a program that is not one: such an entry
    costs its compiling, never a wrong match."""
    first = others(cache)
    form, version, kept = marshal.loads(cache.read_bytes())
    spoilt = {
        key: marshal.dumps((0, [99999, 1, 2], 0, {}, ())) if key[0] == "re" else value
        for key, value in kept.items()
    }
    cache.write_bytes(marshal.dumps((form, version, spoilt)))
    again = others(cache)
    assert again["re"] == [0, first["re"][1]] and again["exec"] == [first["exec"][1], 0]
    same_results(first, again)


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
    (cache,) = (tmp_path / "cache" / "tai" / "launch").glob("code-*.marshal")
    names = {name for _, _, name in entries(cache)}
    assert "<attrs generated methods tai_core.events.TextReceived>" in names
    assert "<attrs generated methods tai_core.runtime._commands.Submit>" in names
    # attrs' own classes too: the file was in place before the run imported attrs
    assert "<attrs generated methods attr.validators._InstanceOfValidator>" in names
    patterns = {pattern for kind, pattern, _ in entries(cache) if kind == "re"}
    assert json.encoder.ESCAPE.pattern in patterns  # json's: imported before the sandbox
    # the providers' protocol too (tai_prepare_isolation), whatever the run's model: h11's
    import h11._readers

    assert h11._readers.status_line_re.pattern in patterns
    assert any(kind == "exec" for kind, _, _ in entries(cache))  # its events' dataclasses
