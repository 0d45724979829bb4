"""Choosing and composing context providers, in-process: which primary serves a directory,
how additive parts are placed and budgeted, and what a failing additive provider costs."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from tai_core.context import TIER_CONTEXT, TIER_FOCUS, ContextPart, ContextRequest
from tai_core.context._compose import Composed, choose
from tai_core.context._prompt import ordered
from tai_core.models import estimate_tokens


@attrs.define
class Fake:
    name: str
    serves: bool = True
    additive: bool = False
    parts: tuple[ContextPart, ...] = ()
    failure: Exception | None = None
    asked: list[int | None] = attrs.Factory(list)
    description: str = "fake"

    def applies(self, cwd: Path) -> bool:
        if self.failure is not None and not self.parts:
            raise self.failure
        return self.serves

    def collect(self, request: ContextRequest) -> tuple[ContextPart, ...]:
        self.asked.append(request.max_tokens)
        if self.failure is not None:
            raise self.failure
        return self.parts


def part(key: str, text: str = "text", tier: int = TIER_CONTEXT) -> ContextPart:
    return ContextPart(tier, key, text)


@pytest.fixture
def warnings() -> list[str]:
    return []


def test_the_primary_is_go_then_any_then_the_first_other(
    tmp_path: Path, warnings: list[str]
) -> None:
    other, any_, go = Fake("aaa"), Fake("any"), Fake("go")
    assert choose([other, any_, go], tmp_path, warnings.append) is go
    go.serves = False
    assert choose([other, any_, go], tmp_path, warnings.append) is any_
    any_.serves = False
    assert choose([other, any_, go], tmp_path, warnings.append) is other
    other.serves = False
    assert choose([other, any_, go, Fake("log", additive=True)], tmp_path, warnings.append) is None


def test_an_additive_provider_is_never_the_primary(tmp_path: Path, warnings: list[str]) -> None:
    log = Fake("aaa-log", additive=True)
    chosen = choose([log, Fake("any")], tmp_path, warnings.append)
    assert isinstance(chosen, Composed)
    assert chosen.primary.name == "any" and chosen.additives == (log,)
    assert chosen.name == "any+aaa-log"


def test_additive_keys_are_prefixed_so_their_place_does_not_depend_on_the_primary(
    tmp_path: Path, warnings: list[str]
) -> None:
    primary = Fake("any", parts=(part("log", "primary's"), part("zz", "focus", TIER_FOCUS)))
    log = Fake("changelog", additive=True, parts=(part("log", "additive's"),))
    composed = choose([primary, log], tmp_path, warnings.append)
    assert composed is not None
    parts = ordered(composed.collect(ContextRequest(cwd=tmp_path, command="go")))
    assert [(p.key, p.text) for p in parts] == [
        ("changelog:log", "additive's"), ("log", "primary's"), ("zz", "focus"),
    ]  # fmt: skip


def test_the_primary_gets_the_room_the_additive_parts_leave(
    tmp_path: Path, warnings: list[str]
) -> None:
    text = "word " * 400
    primary, log = Fake("any"), Fake("log", additive=True, parts=(part("k", text),))
    composed = choose([primary, log], tmp_path, warnings.append)
    assert composed is not None
    composed.collect(ContextRequest(cwd=tmp_path, command="go", max_tokens=5000))
    assert log.asked == [5000]
    assert primary.asked == [5000 - estimate_tokens(text)]
    composed.collect(ContextRequest(cwd=tmp_path, command="go"))
    assert primary.asked[-1] is None


def test_additive_parts_that_fill_the_window_say_so(tmp_path: Path, warnings: list[str]) -> None:
    from tai_core.context import ContextTooLarge

    log = Fake("log", additive=True, parts=(part("k", "word " * 400),))
    composed = choose([Fake("any"), log], tmp_path, warnings.append)
    assert composed is not None
    with pytest.raises(ContextTooLarge, match="the parts of log alone fill"):
        composed.collect(ContextRequest(cwd=tmp_path, command="go", max_tokens=10))


def test_a_failing_additive_provider_is_named_and_left_out(
    tmp_path: Path, warnings: list[str]
) -> None:
    broken = Fake("broken", additive=True, failure=ValueError("bad"))
    collects = Fake("flaky", additive=True, parts=(part("k"),), failure=OSError("gone"))
    primary = Fake("any", parts=(part("p"),))
    composed = choose([primary, broken, collects], tmp_path, warnings.append)
    assert composed is not None
    assert [p.key for p in composed.collect(ContextRequest(cwd=tmp_path, command="go"))] == ["p"]
    assert warnings == [
        "context provider 'broken' failed: ValueError: bad",
        "context provider 'flaky' failed: OSError: gone; its parts are left out",
    ]
