"""The prompt builder: order and what goes where (same bytes across processes:
tests/test_determinism.py)."""

from __future__ import annotations

from tai_core.blocks import FORMAT_RESTATEMENT, FORMAT_SYSTEM_PROMPT
from tai_core.context import TIER_CONTEXT, TIER_EXTERNAL, TIER_FILES, TIER_FOCUS, ContextPart
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
