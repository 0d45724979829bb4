"""The prompt builder: order and what goes where (same bytes across processes:
tests/test_determinism.py)."""

from __future__ import annotations

from tai_core.blocks import FORMAT_RESTATEMENT, FORMAT_SYSTEM_PROMPT
from tai_core.context import (
    TIER_CONTEXT,
    TIER_EXTERNAL,
    TIER_FILES,
    TIER_FOCUS,
    ContextPart,
    withheld,
)
from tai_core.context._prompt import build_prompt

PARTS = [
    ContextPart(TIER_FOCUS, "b", "``` focus b"),
    ContextPart(TIER_EXTERNAL, "z", "``` external z"),
    ContextPart(TIER_FILES, "notes.md", "``` file notes.md", path="notes.md", read_only=True),
    ContextPart(TIER_CONTEXT, "a", "``` context a"),
    ContextPart(TIER_FOCUS, "a", "``` focus a"),
]


def prompt(host, parts=PARTS, **overrides):
    arguments = {
        "base": "BASE", "kinds": host.registry.block_kinds.values(), "command": "go",
        "parts": parts, "task": "fix it", "config": {}, "disabled": ["shell"],
    }  # fmt: skip
    return build_prompt(**{**arguments, **overrides})


def test_layout(host) -> None:
    built = prompt(host, feedback="loop 1 failed", now="2026-11-30 10:00 UTC")
    assert built.system.startswith("BASE\n\n" + FORMAT_SYSTEM_PROMPT)
    assert "# change blocks" in built.system and "# shell blocks" not in built.system
    assert "- shell: commands cannot be run now" in built.system
    assert built.system.endswith("never target them with change blocks:\n- notes.md")
    order = [built.user.index(text) for text in
             ("external z", "context a", "focus a", "focus b", "file notes.md",
              FORMAT_RESTATEMENT, "loop 1 failed", "Current time", "# Task")]  # fmt: skip
    assert order == sorted(order)
    assert built.user.endswith("# Task\n\nfix it")


def test_extra_system_prompts(host) -> None:
    config = {
        "extra_system_prompt": ["Be terse."],
        "family_extra_system_prompt": {"gemini": "No emojis."},
        "go": {"extra_system_prompt": "Prefer table tests."},
    }
    built = prompt(host, config=config, family="gemini")
    assert built.system.endswith("Be terse.\n\nNo emojis.\n\nPrefer table tests.")
    assert "Prefer table tests." not in prompt(host, config=config, command="any").system


def test_editing_a_focus_part_keeps_everything_before_it(host) -> None:
    edited = [
        ContextPart(p.tier, p.key, p.text + " (edited)") if p.key == "b" else p for p in PARTS
    ]
    before, after = prompt(host).user, prompt(host, parts=edited).user
    cut = before.index("``` focus b")
    assert after[:cut] == before[:cut]
    assert prompt(host).system == prompt(host, parts=edited).system


def test_the_go_tables_family_prompt_applies_to_its_family_only(host) -> None:
    config = {"go": {"family_extra_system_prompt": {"gemini": "Gemini, be brief."}}}
    assert prompt(host, config=config, family="gemini").system.endswith("Gemini, be brief.")
    assert "Gemini, be brief." not in prompt(host, config=config, family="openai").system


def test_only_read_only_files_with_a_path_are_listed(host) -> None:
    parts = [
        ContextPart(TIER_FILES, "w.md", "``` file w.md", path="w.md"),
        ContextPart(TIER_FILES, "r1", "``` file r1", path="r1.go", read_only=True),
        ContextPart(TIER_FILES, "r2", "``` file r2", path="r2.go", read_only=True),
        ContextPart(TIER_FILES, "nameless", "``` nameless", read_only=True),
    ]
    assert prompt(host, parts=parts).system.endswith(
        "never target them with change blocks:\n- r1.go\n- r2.go"
    )
    no_listing = prompt(host, parts=parts[:1]).system
    assert "Read-only" not in no_listing and not no_listing.endswith("\n")


def test_the_exact_layout_of_the_user_prompt(host) -> None:
    from tai_core.blocks import block_prompts

    parts = [
        ContextPart(TIER_CONTEXT, "a", "  indented context\n\n"),
        ContextPart(TIER_FOCUS, "b", "focus\n"),
        withheld("conf/.env", "an environment file"),
    ]
    built = prompt(host, base="   ", parts=parts, feedback="  ", now="")
    restatement = block_prompts(host.registry.block_kinds.values(), "go", ["shell"])[1]
    assert built.user == (
        "  indented context\n\nfocus\n\n"
        "Files withheld as secrets (they exist, but their content is not shown; ask the user "
        f"if the task needs what they hold):\n- conf/.env (an environment file)\n\n"
        f"{restatement}\n\n# Task\n\nfix it"
    )
    assert built.system.startswith(FORMAT_SYSTEM_PROMPT)  # a blank base leaves no gap


def test_a_file_named_with_file_is_sent_and_not_listed_as_withheld(host) -> None:
    named = ContextPart(TIER_FILES, ".env", "``` file .env\nTOKEN=1", path=".env")
    parts = [named, withheld(".env", "an environment file"), withheld("b.pem", "a private key")]
    user = prompt(host, parts=parts).user
    assert "TOKEN=1" in user
    assert "- b.pem (a private key)" in user and "- .env (" not in user


def test_what_is_not_given_adds_nothing(host) -> None:
    from tai_core.blocks import block_prompts

    kinds = host.registry.block_kinds.values()
    built = build_prompt(base="BASE", kinds=kinds, command="go", parts=[], task="fix it")
    system, restatement = block_prompts(kinds, "go", ())
    assert built.system == f"BASE\n\n{system.strip()}"
    assert built.user == f"{restatement}\n\n# Task\n\nfix it"


def test_a_standing_text_goes_with_its_plugins_kinds(host) -> None:
    """A plugin's standing text documents its kinds (the skills index, the skill kind): it
    is left out when every kind its plugin registers is off, kept while one is on; a text
    of a plugin that registers none stands whatever is off."""
    standing = [
        ("# Skills\n\n- review", frozenset({"skill"})),
        ("# Two kinds", frozenset({"shell", "ingest"})),
        ("# Project rules", frozenset()),
    ]
    on = prompt(host, standing=standing, disabled=["shell"]).system
    assert all(text in on for text, _ in standing)
    off = prompt(host, standing=standing, disabled=["shell", "skill", "ingest"]).system
    assert "# Skills" not in off and "# Two kinds" not in off and "# Project rules" in off
