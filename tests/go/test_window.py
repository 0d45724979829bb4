"""Every request fits the model: the staged context lowers its levels to fit
``max_tokens`` — context packages first, then focus packages largest first — names what it
reduced, gives the same reductions for the same inputs, and refuses what cannot fit."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tai_core.context import ContextError
from tai_core.models import estimate_tokens
from tests.conftest import run_tai
from tests.go.conftest import GO_MOD, collect, part_with, text_of, write
from tests.servers import FakeModelServer, Reply

NOTE = "To fit the model's window, this context shows less than it would:"


def _tokens(parts) -> int:
    return sum(estimate_tokens(part.text) for part in parts)


def _focus_limit(parts, less: int) -> int:
    """A limit ``less`` tokens below what ``parts`` need without their context packages
    (which go first), so that focus packages must be lowered."""
    context = [part for part in parts if "begin of context " in part.text]
    return _tokens(parts) - _tokens(context) - less


def _doc(index: int, size: int) -> str:
    """A package ``p{index}`` with ``size`` documented functions."""
    funcs = "".join(
        f"// F{n} does thing number {n} of package {index}, carefully and well.\n"
        f"func F{n}() int {{ return {n} }}\n\n"
        for n in range(size)
    )
    return f"// Package p{index} is package {index}.\npackage p{index}\n\n{funcs}"


@pytest.fixture
def sized(tmp_path: Path) -> Path:
    """Three focus packages of different sizes; ``big`` imports a context package."""
    return write(
        tmp_path / "m",
        {
            "go.mod": GO_MOD,
            "big/big.go": _doc(1, 60).replace(
                "package p1\n", 'package p1\n\nimport _ "example.com/m/internal/dep"\n'
            ),
            "mid/mid.go": _doc(2, 30),
            "small/small.go": _doc(3, 5),
            "internal/dep/dep.go": _doc(4, 40),
        },
    )


def test_without_a_limit_nothing_is_reduced(sized: Path) -> None:
    assert NOTE not in text_of(collect(sized, focus=("./big", "./mid", "./small")))


def test_focus_packages_are_lowered_largest_first_and_named(sized: Path) -> None:
    focus = ("./big", "./mid", "./small")
    limit = _focus_limit(collect(sized, focus=focus), 200)
    parts = collect(sized, focus=focus, max_tokens=limit)
    assert _tokens(parts) <= limit
    note = part_with(parts, NOTE).text
    assert (
        "- focus package example.com/m/big: package documentation (instead of full documentation)"
        in note
    )
    assert (
        "- context package example.com/m/internal/dep: left out (instead of source and files)"
        in note
    )
    assert "example.com/m/small" not in note and "example.com/m/mid" not in note
    big = part_with(parts, "begin of focus package example.com/m/big").text
    assert "Shown as its package documentation to fit the model's window" in big
    assert "go-src block naming example.com/m/big returns its full documentation" in big
    small = part_with(parts, "begin of focus package example.com/m/small").text
    assert "F4 does thing number 4 of package 3" in small  # still the full documentation


def test_context_packages_go_before_any_focus_package(sized: Path) -> None:
    full = collect(sized, focus=("./big",), context=("./internal/dep",))
    assert "context file internal/dep/dep.go" in text_of(full)
    limit = _tokens(full) - 50
    parts = collect(sized, focus=("./big",), context=("./internal/dep",), max_tokens=limit)
    note = part_with(parts, NOTE).text
    assert (
        "- context package example.com/m/internal/dep: left out (instead of source and files)"
        in note
    )
    assert "focus package" not in note
    assert "F59 does thing number 59 of package 1" in text_of(parts)


def test_a_window_too_small_for_the_least_is_an_error(sized: Path) -> None:
    with pytest.raises(ContextError) as error:
        collect(sized, focus=("./big", "./mid", "./small"), max_tokens=100)
    message = str(error.value)
    assert "\n" not in message and "more than the 100 the model's window leaves" in message
    assert "narrow the focus" in message


def test_the_reductions_are_stable_as_the_limit_is_fixed(sized: Path) -> None:
    """A goal loop that edits a function body gets the same reductions."""
    focus = ("./big", "./mid", "./small")
    limit = _focus_limit(collect(sized, focus=focus), 200)
    before = collect(sized, focus=focus, max_tokens=limit)
    source = sized / "big" / "big.go"
    source.write_text(source.read_text().replace("return 7 }", "return 7 + 0 }"))
    after = collect(sized, focus=focus, max_tokens=limit)
    assert part_with(before, NOTE) == part_with(after, NOTE)


def test_files_of_the_module_cache_are_named_by_module_and_version(
    tmp_path: Path, pinned: Callable[[str], Path]
) -> None:
    cobra = pinned("cobra")
    parts = collect(cobra, focus=(".",), context=("github.com/spf13/pflag",))
    text = text_of(parts)
    assert "begin of context file github.com/spf13/pflag@v1.0.9/flag.go" in text
    assert "/pkg/mod/" not in text
    assert "_test.go" not in "".join(p.path for p in parts if "pflag" in p.path)


@pytest.mark.slow
def test_the_first_request_for_x_tools_fits_128k(
    tmp_path: Path,
    isolated_env: dict[str, str],
    openai_server: FakeModelServer,
    pinned: Callable[[str], Path],
) -> None:
    tools = pinned("tools")
    openai_server.script(
        Reply(text="<<翡翠 done\n- nothing to do\n翡翠\n<<琥珀 summary\n- x\n琥珀\n")
    )
    (tools / "tai.toml").write_text(
        'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\n'
        f'model = "coder"\nbase_url = "{openai_server.base_url}"\napi_key = "sk-test"\n'
        "context_tokens = 128000\nmax_generate_tokens = 8192\n"
    )
    try:
        result = run_tai(
            "-max-loops", "1", "chat", "Describe the module", cwd=tools, env=isolated_env
        )
    finally:
        (tools / "tai.toml").unlink()
    assert openai_server.requests, result.stderr[-3000:]
    assert "tai: note: the Go context was lowered to fit the model's window: " in result.stderr
    body = openai_server.requests[0].body
    sent = sum(estimate_tokens(m["content"]) for m in body["messages"])
    assert sent <= 128000 - 8192
    first = json.dumps(body["messages"])
    assert NOTE in first
    assert "begin of focus package golang.org/x/tools/go/packages" in first
    assert "Package packages loads Go packages for inspection and analysis." in first


@pytest.mark.slow
def test_a_window_too_small_sends_nothing(
    tmp_path: Path, isolated_env: dict[str, str], openai_server: FakeModelServer, sized: Path
) -> None:
    (sized / "tai.toml").write_text(
        'model = "local"\n[[generators]]\nname = "local"\ntype = "openai"\n'
        f'model = "coder"\nbase_url = "{openai_server.base_url}"\napi_key = "sk-test"\n'
        "context_tokens = 6000\nmax_generate_tokens = 1000\n"
    )
    result = run_tai("chat", "x", cwd=sized, env=isolated_env)
    assert result.returncode == 1 and not openai_server.requests
    (error,) = [line for line in result.stderr.splitlines() if line.startswith("tai: error:")]
    assert error.startswith("tai: error: context: ") and "model's window" in error


def test_room_is_kept_for_the_conversation_unless_the_context_needs_it(sized: Path) -> None:
    from tai_context_go import PROVIDER
    from tai_core.commands._assemble import within_window
    from tai_core.context._prompt import Prompt
    from tai_core.models import Window
    from tests.go.conftest import request

    focus = ("./big", "./mid", "./small")
    needed = _tokens(collect(sized, focus=focus))

    def build(parts) -> Prompt:
        return Prompt(system="", user="".join(part.text for part in parts))

    def first(window: int) -> str:
        wide = Window(window, 0)
        _, prompt = within_window(
            PROVIDER, request(sized, focus=focus), build, wide, 0, conversation=window // 4
        )
        return prompt.user

    roomy = first(needed * 2)  # the context and the conversation both fit
    assert NOTE not in roomy
    kept = first(needed + needed // 8)  # it fits whole only in the conversation's room
    assert NOTE in kept and estimate_tokens(kept) <= (needed + needed // 8) * 3 // 4
    least = _tokens(collect(sized, focus=focus, max_tokens=needed // 2))
    given = first(least + 10)  # it fits only with the conversation's room given to it
    assert NOTE in given and estimate_tokens(given) <= least + 10
