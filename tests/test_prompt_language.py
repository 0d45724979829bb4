"""The language of summary blocks in the system prompt (tai_core.context._prompt): asked
for in the commands whose replies end with summaries, and only when one is configured."""

from __future__ import annotations

from tai_core.context._prompt import extra_system_prompts

SECTION = "# Summary language\n\nWrite the bullets of summary blocks in German."


def test_the_language_is_asked_for_where_summaries_are_written() -> None:
    config = {"summary_language": "German"}
    for command in ("go", "any", "next"):
        assert extra_system_prompts(config, "", command) == [SECTION]
    assert extra_system_prompts(config, "", "ai") == []  # a chat writes no summary blocks
    assert extra_system_prompts({}, "", "go") == []
    assert extra_system_prompts({"summary_language": ""}, "", "go") == []
