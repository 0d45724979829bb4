"""The prompt builder: static first, dynamic last, parts in tier order.

THEORY_OF_PREFIX_CACHING: model providers cache the longest prefix a request shares with
earlier ones, and charge a fraction for it. So the prompt is laid out by how often each
piece changes: the system prompt (the command's base text, the block format, one section
per enabled kind, the disabled kinds, the read-only files, the plugins' standing texts such
as the project's instructions, the configured extra prompts)
never changes within a project; the user prompt's context parts come in ``(tier, key)``
order — other modules' files, then the project's context, then its focus, then files
named with ``-file`` — so editing a focus file changes nothing before the focus tier; the
closing list of the files withheld as secrets (each named once, by path) and the
restatements follow; and what changes on every request — loop feedback, the time, the
task — comes last. The same inputs give byte-identical prompts (nothing here reads a
clock or iterates a set unless the caller passes the time in).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from tai_core.blocks import BlockKind, block_prompts
from tai_core.context._contract import ContextPart
from tai_core.context._secrets import withheld_section

#: A plugin's standing text (``tai_system_prompt``) and the block kinds its plugin
#: registers (none: it stands whatever kinds are in force).
Standing = tuple[str, frozenset[str]]

#: What opens the line of the prompt that tells the time.
CLOCK_PREFIX = "Current time: "
#: What opens the task in a first message: all before it is the rules and the files that
#: came with the task (compaction keeps them: ``tai_core.runtime._compaction``).
TASK_HEADING = "# Task\n\n"


@attrs.frozen
class Prompt:
    """The system prompt and the first user message of a request."""

    system: str
    user: str


def _texts(value: Any) -> list[str]:
    if not value:
        return []
    return [value] if isinstance(value, str) else [str(item) for item in value]


#: The commands whose replies end with summary blocks (``summary_language`` applies).
SUMMARY_COMMANDS = frozenset({"go", "py", "any", "next"})


def extra_system_prompts(config: Mapping[str, Any], family: str, command: str) -> list[str]:
    """The configured extra system prompts that apply: ``extra_system_prompt``, the
    model family's ``family_extra_system_prompt``, the language of summary blocks
    (``summary_language``), and for Go runs the ``go`` table's."""
    texts = _texts(config.get("extra_system_prompt"))
    texts += _texts(dict(config.get("family_extra_system_prompt") or {}).get(family))
    language = config.get("summary_language")
    if language and command in SUMMARY_COMMANDS:
        texts.append(f"# Summary language\n\nWrite the bullets of summary blocks in {language}.")
    if command == "go":
        go = dict(config.get("go") or {})
        texts += _texts(go.get("extra_system_prompt"))
        texts += _texts(dict(go.get("family_extra_system_prompt") or {}).get(family))
    return texts


def _read_only_section(parts: Sequence[ContextPart]) -> str:
    paths = sorted(
        {part.path for part in parts if part.read_only and part.path and not part.withheld}
    )
    if not paths:
        return ""
    listed = "\n".join(f"- {path}" for path in paths)
    return (
        "# Read-only files\n\nThese files are outside what this run may change; never target "
        f"them with change blocks:\n{listed}"
    )


def ordered(parts: Iterable[ContextPart]) -> list[ContextPart]:
    """``parts`` in prompt order: by tier, then key (then text, for total determinism)."""
    return sorted(parts, key=lambda part: (part.tier, part.key, part.text))


def build_prompt(
    *,
    base: str,
    kinds: Iterable[BlockKind],
    command: str,
    parts: Sequence[ContextPart],
    task: str,
    config: Mapping[str, Any] | None = None,
    disabled: Iterable[str] = (),
    family: str = "",
    feedback: str = "",
    now: str = "",
    standing: Sequence[Standing] = (),
) -> Prompt:
    """The prompt of a request; see the module docstring for the layout. ``standing`` are
    the plugins' standing texts (``tai_system_prompt``: project instructions, skills),
    each with the block kinds its plugin registers: a text whose kinds are all disabled
    is left out with them (the skills index, where the skill kind is off)."""
    settings = config or {}
    off = set(disabled)
    texts = [text for text, kinds in standing if not kinds or not kinds <= off]
    files = [part.path for part in parts if part.path]
    blocks_system, restatement = block_prompts(kinds, command, disabled, files)
    system = "\n\n".join(
        text.strip()
        for text in (
            base,
            blocks_system,
            _read_only_section(parts),
            *texts,
            *extra_system_prompts(settings, family, command),
        )
        if text and text.strip()
    )
    dynamic = [
        f"# Feedback from the previous loop\n\n{feedback.strip()}" if feedback.strip() else "",
        f"{CLOCK_PREFIX}{now}" if now else "",
        f"{TASK_HEADING}{task.strip()}",
    ]
    shown = [part for part in ordered(parts) if not part.withheld]
    sent = {part.path for part in shown}  # a file the user named with -file is sent
    secrets = withheld_section(
        {p.path: p.withheld for p in ordered(parts) if p.withheld and p.path not in sent}
    )
    user = "\n\n".join(
        text
        for text in (
            *(part.text.rstrip() for part in shown),
            secrets.rstrip(),
            restatement,
            *dynamic,
        )
        if text
    )
    return Prompt(system=system, user=user)
