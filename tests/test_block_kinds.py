"""The built-in kinds' contract, validation and prompts, through the real plugin host."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from tai_core import Block, BlockNotRunnableError, BlockResult, hookimpl, parse_blocks
from tai_core.blocks import FORMAT_RESTATEMENT, FORMAT_SYSTEM_PROMPT, block_prompts
from tai_core.plugins import PluginHost

from .conftest import run_context


def block(text: str) -> Block:
    (result,) = parse_blocks(text)
    assert isinstance(result, Block), result
    return result


def problems(host: PluginHost, text: str) -> list[str]:
    parsed = block(text)
    kind = host.registry.block_kinds[parsed.kind]
    return [p for found in host.pm.hook.tai_validate_block(block=parsed, kind=kind) for p in found]


VALID = [
    '<<紫藤 change(op="MODIFY", target="T.M", file-path="a.go")\nfunc (t T) M() {}\n紫藤',
    '<<紫藤 change(op="DELETE", target="*", file-path="a.go")\n紫藤',
    '<<紫藤 change(op="MODIFY", target="C.m", file-path="a.py")\ndef m(self): ...\n紫藤',
    '<<紫藤 change(op="DELETE", target="Proto.f", file-path="a.pyi")\n紫藤',
    '<<紫藤 change(op="REPLACE", find="x = 1", file-path="a.py")\nx = 2\n紫藤',
    '<<紫藤 change(op="RENAME", target="b.txt", file-path="a.txt")\n紫藤',
    '<<紫藤 change(op="INSERT_AFTER", find="x = 1", file-path="a.txt")\ny = 2\n紫藤',
    "<<紫藤 shell\ngo vet ./...\n紫藤",
    "<<紫藤 go-test\n-run\n^TestX$\n紫藤",
    "<<紫藤 go-test\n紫藤",
    "<<紫藤 pytest\n-k\ntest_parse\ntests/test_x.py::test_y\n紫藤",
    "<<紫藤 pytest\n紫藤",
    "<<紫藤 py-src\nshop.cart.Cart.add\n紫藤",
    "<<紫藤 go-src\nParse\nstrings.Cut\n紫藤",
    "<<紫藤 ingest\n<file>README.md</file>\n<glob>**/*.go</glob>\n紫藤",
    "<<紫藤 continue\nnow the tests\n紫藤",
    "<<紫藤 summary\n- fixed the parser\n  (and its test)\n紫藤",
    "<<紫藤 memory\n<memory><memory-item>prefers Go</memory-item></memory>\n紫藤",
    "<<紫藤 done\nall tests pass\n紫藤",
    '<<紫藤 new-plan(parent="user-input-1", name="p1")\nsplit the work\n紫藤',
    '<<紫藤 plan-op(op="add", parent="p1", name="s1")\nwrite the parser\n紫藤',
    '<<紫藤 plan-op(op="done", name="s1")\n紫藤',
    '<<紫藤 response(parent="user-input-1", name="r1")\nTCP is a stream.\n紫藤',
    '<<紫藤 shell(parent="p1", name="vet")\ngo vet\n紫藤',
]


@pytest.mark.parametrize("text", VALID)
def test_valid_blocks_have_no_problems(host: PluginHost, text: str) -> None:
    assert problems(host, text) == []


INVALID = [
    ('<<紫藤 change(file-path="a.go")\nx\n紫藤', "change blocks need the parameter 'op'"),
    ('<<紫藤 change(op="PATCH", file-path="a")\nx\n紫藤', "must be one of MODIFY"),
    ('<<紫藤 change(op="MODIFI", file-path="a")\nx\n紫藤', "not 'MODIFI': did you mean 'MODIFY'?"),
    ('<<紫藤 change(op="write", file-path="a")\nx\n紫藤', "not 'write': did you mean 'WRITE'?"),
    (
        '<<紫藤 change(opp="WRITE", file-path="a")\nx\n紫藤',
        "no parameter 'opp' (they take: file-path, find, op, target): did you mean 'op'?",
    ),
    ('<<紫藤 change(op="MODIFY", file-path="a.go")\nx\n紫藤', "change op MODIFY needs a target"),
    ('<<紫藤 change(op="REPLACE", file-path="a")\nx\n紫藤', "change op REPLACE needs find"),
    (
        '<<紫藤 change(op="DELETE", target="Title", file-path="a.md")\n紫藤',
        "with a declaration target works on Go and Python files only",
    ),
    ('<<紫藤 change(op="REPLACE", find="f", file-path="a.go")\nx\n紫藤', "does not work on Go"),
    ('<<紫藤 change(op="WRITE", find="x", file-path="a")\nx\n紫藤', "takes no find"),
    ('<<紫藤 change(op="WRITE", file-path="a")\n紫藤', "change op WRITE needs a body"),
    ('<<紫藤 change(op="WRITE", file-path="a", parent="x")\nx\n紫藤', "no parameter 'parent'"),
    ("<<紫藤 shell\n紫藤", "a shell block needs a command as its body"),
    ("<<紫藤 shell(timeout=3)\nls\n紫藤", "shell blocks take no parameter 'timeout'"),
    ("<<紫藤 ingest\nREADME.md\n紫藤", "at least one <file>, <glob> or <fetch>"),
    ("<<紫藤 continue\n紫藤", "a continue block needs what remains to be done as its body"),
    ('<<紫藤 response(parent="u", name="r")\n紫藤', "a response block needs the answer"),
    ('<<紫藤 new-plan(parent="u", name="p")\n紫藤', "needs the goal and the approach"),
    ("<<紫藤 summary\nfixed it\n紫藤", "at least one `- ` bullet"),
    ("<<紫藤 memory\n<memory><x></memory>\n紫藤", "not well-formed XML"),
    ("<<紫藤 memory\n<profile/>\n紫藤", "root element must be <memory>"),
    ('<<紫藤 new-plan(name="p")\nx\n紫藤', "new-plan blocks need the parameter 'parent'"),
    ('<<紫藤 plan-op(op="add", name="s")\nx\n紫藤', "plan-op add needs parent"),
    ('<<紫藤 plan-op(op="abort", name="p")\n紫藤', "plan-op abort needs a body"),
    ('<<紫藤 response(parent="u")\nx\n紫藤', "response blocks need the parameter 'name'"),
]


def test_a_change_without_op_is_told_only_that(host: PluginHost) -> None:
    found = problems(host, '<<紫藤 change(file-path="a.txt", find="x")\nx\n紫藤')
    assert found == ["change blocks need the parameter 'op' (not empty)"]


@pytest.mark.parametrize(("text", "expected"), INVALID)
def test_invalid_blocks_say_why(host: PluginHost, text: str, expected: str) -> None:
    found = problems(host, text)
    assert any(expected in problem for problem in found), found


def test_contract_flags(host: PluginHost) -> None:
    kinds = host.registry.block_kinds
    assert [name for name, kind in sorted(kinds.items()) if kind.streams] == ["change"]
    triggering = {name for name, kind in kinds.items() if kind.triggers_round}
    assert triggering == {
        "shell",
        "go-test",
        "pytest",
        "go-src",
        "py-src",
        "ingest",
        "continue",
        "new-plan",
        "plan-op",
        "skill",
    }
    assert kinds["memory"].commands == frozenset({"ai"})
    assert "ai" not in kinds["continue"].commands
    for kind in kinds.values():
        assert kind.prompt_section.startswith(f"# {kind.name} blocks")
        assert kind.restatement and kind.disabled_notice


def test_a_kind_without_execution_says_so(host: PluginHost, tmp_path: Path) -> None:
    # change blocks are applied while the reply streams; they have nothing to run after it
    context = run_context(host, tmp_path)
    parsed = block('<<紫藤 change(op="WRITE", file-path="x.txt")\nx\n紫藤')
    kind = host.registry.block_kinds[parsed.kind]
    with pytest.raises(BlockNotRunnableError, match="cannot run in this version"):
        host.pm.hook.tai_run_block(block=parsed, kind=kind, context=context)
    assert list(tmp_path.iterdir()) == []


def test_continue_runs_for_real(host: PluginHost, tmp_path: Path) -> None:
    parsed = block("<<紫藤 continue\nnow write the tests\n紫藤")
    kind = host.registry.block_kinds["continue"]
    result = host.pm.hook.tai_run_block(
        block=parsed, kind=kind, context=run_context(host, tmp_path)
    )
    assert result == BlockResult(kind="continue", ok=True, text="now write the tests")


class Refuser:
    __name__ = "refuser"

    @hookimpl(tryfirst=True)
    def tai_run_block(self, block, kind):
        if kind.name == "continue" and "forbidden" in block.body:
            return BlockResult(kind=kind.name, ok=False, text="refused by policy")
        return None


class Shouter:
    __name__ = "shouter"

    @hookimpl(wrapper=True, specname="tai_run_block")
    def shout(self):
        result = yield
        return attrs.evolve(result, text=result.text.upper())


def test_policy_and_wrapper_plugins_around_a_run(host: PluginHost, tmp_path: Path) -> None:
    host.register(Refuser(), "refuser")
    host.register(Shouter(), "shouter")
    kind = host.registry.block_kinds["continue"]
    context = run_context(host, tmp_path)
    refused = host.pm.hook.tai_run_block(
        block=block("<<紫藤 continue\nforbidden\n紫藤"), kind=kind, context=context
    )
    assert refused == BlockResult(kind="continue", ok=False, text="REFUSED BY POLICY")
    allowed = host.pm.hook.tai_run_block(
        block=block("<<紫藤 continue\nfine\n紫藤"), kind=kind, context=context
    )
    assert allowed.text == "FINE" and allowed.ok


def test_format_prompts_are_kind_agnostic(host: PluginHost) -> None:
    for name in host.registry.block_kinds:
        for text in (FORMAT_SYSTEM_PROMPT, FORMAT_RESTATEMENT):
            for form in (f"`{name}`", f"{name}(", f"{name} block"):
                assert form not in text
    assert "not tool calls" in FORMAT_SYSTEM_PROMPT
    assert "next message" in FORMAT_SYSTEM_PROMPT
    assert "Do not guess" in FORMAT_RESTATEMENT


def test_block_prompts_per_command(host: PluginHost) -> None:
    kinds = list(host.registry.block_kinds.values())
    system, restatement = block_prompts(kinds, "ai")
    assert system.startswith(FORMAT_SYSTEM_PROMPT)
    assert "# memory blocks" in system and "# shell blocks" in system
    assert "# change blocks" not in system
    disabled = system[system.index("# Disabled blocks") :]
    assert "- change: files cannot be changed now" in disabled
    assert "- continue: there is no next round" in disabled
    assert restatement.startswith(FORMAT_RESTATEMENT)
    assert "memory block:" in restatement

    go_system, _ = block_prompts(kinds, "go", disabled=["shell"])
    assert "# change blocks" in go_system and "# shell blocks" not in go_system
    assert "- shell: commands cannot be run now" in go_system


def test_another_languages_kinds_are_not_announced_in_a_goal_loop(host: PluginHost) -> None:
    """A Python project's prompt does not say "go-test: tests cannot be run now" (it has
    pytest), nor a Go module's that py-src is off; where a kind is merely unavailable
    (``next``, ``ai``), it is still announced as disabled."""
    kinds = list(host.registry.block_kinds.values())
    system = {command: block_prompts(kinds, command)[0] for command in ("go", "py", "next")}
    assert "# pytest blocks" in system["py"] and "# go-test blocks" in system["go"]
    assert "go-src" not in system["py"] and "go-test" not in system["py"]
    assert "py-src" not in system["go"] and "pytest" not in system["go"]
    disabled = system["next"][system["next"].index("# Disabled blocks") :]
    for name in ("go-src", "go-test", "py-src", "pytest"):
        assert f"- {name}: " in disabled
    # The change kind teaches the rules of the loop's language only; any-text both.
    assert "Python files, by declaration" in system["py"] and "gofmt" not in system["py"]
    assert "gofmt" in system["go"] and "Python files, by declaration" not in system["go"]
    any_text = block_prompts(kinds, "any")[0]
    assert "gofmt" in any_text and "Python files, by declaration" in any_text


@pytest.mark.parametrize(
    ("files", "offered"),
    [
        (["notes.md", "README"], set()),
        (["notes.md", "tool/main.go"], {"go-src", "go-test"}),
        (["svc/go.mod"], {"go-src", "go-test"}),
        (["scripts/fix.py", "a.txt"], {"py-src", "pytest"}),
        (["pkg/pyproject.toml", "x/y.go"], {"go-src", "go-test", "py-src", "pytest"}),
    ],
)
def test_an_any_text_run_offers_a_language_s_kinds_only_with_its_files(
    host: PluginHost, files: list[str], offered: set[str]
) -> None:
    """A directory of notes is told nothing of Go or Python tests; the goal loops of the
    language, and a prompt built without knowing the files, offer them as before."""
    kinds = list(host.registry.block_kinds.values())
    languages = {"go-src", "go-test", "py-src", "pytest"}
    system = block_prompts(kinds, "any", files=files)[0]
    shown = {name for name in languages if f"# {name} blocks" in system}
    assert shown == offered
    assert not any(f"- {name}: " in system for name in languages - offered)  # nor disabled
    assert "# go-test blocks" in block_prompts(kinds, "go", files=["notes.md"])[0]
    assert "# pytest blocks" in block_prompts(kinds, "py", files=[])[0]
    assert languages <= {n for n in languages if f"# {n} blocks" in block_prompts(kinds, "any")[0]}


def test_a_kind_without_offered_is_always_offered(host: PluginHost) -> None:
    """A third party's kind that fulfils the contract without the base class."""

    class Plain:
        name = "plain"
        commands = frozenset({"any"})
        prompt_section = "# plain blocks\n\nPlain."
        restatement = ""

    assert "# plain blocks" in block_prompts([Plain()], "any", files=[])[0]  # type: ignore[list-item]


def test_the_article_of_a_kind_that_needs_a_body() -> None:
    from tai_core import BlockKind

    class Echo(BlockKind):
        name = "echo"
        requires_body = "the text to echo"

    block = Block(kind="echo", delimiter="W", params={}, body="", line=1, start=0, end=0)
    assert Echo().validate(block) == ["an echo block needs the text to echo as its body"]
