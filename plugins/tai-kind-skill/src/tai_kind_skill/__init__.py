"""The ``skill`` kind: instructions for particular tasks, indexed cheaply, loaded on demand.

The system prompt carries one line per skill (name and description, sorted, in its static
part: ``tai_system_prompt``), so a skill the model does not use costs only that line; when
a task matches one, the model writes a ``skill`` block naming it and gets the skill's
instructions and the list of its files, and a block with ``file="…"`` reads one of them.
Where skills come from, and their format, is :mod:`._skills`.

What a skill hands the model passes the same secret check as any file the model is sent
(``tai_secret_file``), and a file outside the skill's directory (``..``, a link leading
out) is refused. Project skills live in ``.tai/skills/``, which the sandbox protects, so no
model output can plant one for a later run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import click

from tai_core import Block, BlockKind, BlockResult, Param, RunContext, did_you_mean, hookimpl
from tai_core.blocks import COMMANDS
from tai_kind_skill._skills import Skill, applying

#: The most bytes of a skill's file sent.
FILE_LIMIT = 64 * 1024


def _warn(line: str) -> None:
    click.echo(f"tai: warning: {line}", err=True)


def _offered(cwd: Path) -> dict[str, Skill]:
    """The skills the model may load in ``cwd``."""
    return {n: s for n, s in applying(cwd.resolve(), _warn).items() if s.model_invocable}


def index(skills: Mapping[str, Skill]) -> str | None:
    """The system prompt's index of ``skills``, or ``None`` when there is none."""
    if not skills:
        return None
    lines = [f"- {name} — {skills[name].description}" for name in sorted(skills)]
    return "\n".join([
        "# Skills\n\nSkills hold instructions for particular tasks. When a task matches "
        "one, load it first with a skill block naming it, and follow what it says:",
        *lines,
    ])  # fmt: skip


class SkillKind(BlockKind):
    """Load a skill's instructions, or one of its files."""

    name = "skill"
    params = (
        Param("file", "A file of the skill to read (a path its listing gives) instead of its "
                      "instructions."),
    )  # fmt: skip
    commands = COMMANDS
    triggers_round = True
    max_rounds = 20
    requires_body = "the skill's name"
    prompt_section = """\
# skill blocks

Load a skill listed under "Skills" with a `skill` block whose body is the skill's name;
its instructions and the list of its files arrive in the next message. Read one of its
files with `file="PATH"` (a path from that list). Load a skill before you act on a task
it covers."""
    restatement = "skill blocks: body = a skill's name; file=PATH reads one of its files."
    disabled_notice = "skills cannot be loaded now; work without them."

    def available(self, config: Mapping[str, Any]) -> bool:
        """Only where some skill is offered: otherwise the kind would cost prompt text."""
        del config
        return bool(_offered(Path.cwd()))

    def execute(self, block: Block, context: RunContext) -> BlockResult:
        """The named skill's instructions and files, or one file of it."""
        name = block.body.strip().splitlines()[0].strip() if block.body.strip() else ""
        skills = _offered(context.cwd)
        skill = skills.get(name)
        if skill is None:
            hint = did_you_mean(name, skills)
            hint = f"; {hint}" if hint else ""
            known = ", ".join(sorted(skills)) or "none"
            return BlockResult(self.name, False, f"no skill {name!r}{hint} (skills: {known})")
        wanted = block.params.get("file", "")
        text = _file(skill, wanted) if wanted else _instructions(skill)
        if isinstance(text, BlockResult):
            return text
        from tai_core.context import hook_check

        shown = f"{skill.name}/{wanted}" if wanted else f"{skill.name}/SKILL.md"
        reason = hook_check(context.hook, context.config)(shown, text.encode())
        if reason:
            return BlockResult(self.name, False, f"{shown} is withheld: {reason}")
        return BlockResult(self.name, True, text)


def _instructions(skill: Skill) -> str:
    files = skill.files()
    listing = "\n".join(f"- {path}" for path in files) or "(none)"
    return (f"# Skill {skill.name}\n\n{skill.body}\n\n"
            f"Files of this skill (read one with file=\"PATH\"):\n{listing}")  # fmt: skip


def _file(skill: Skill, wanted: str) -> str | BlockResult:
    """The text of the skill's file ``wanted``, or why it is refused."""
    directory = skill.directory.resolve()
    path = (directory / wanted).resolve()
    if not path.is_relative_to(directory) or path == directory:
        return BlockResult("skill", False, f"{wanted}: not a file of the skill {skill.name}")
    try:
        data = path.read_bytes()
    except OSError as error:  # say where it was looked for, and what there is
        listing = ", ".join(skill.files()) or "none"
        return BlockResult(
            "skill", False, f"{wanted}: {error.strerror} in the directory of the skill "
            f"{skill.name} ({directory}), whose files are: {listing}",
        )  # fmt: skip
    if b"\0" in data[:8192]:
        return BlockResult("skill", False, f"{wanted}: a binary file is not sent")
    text = data[:FILE_LIMIT].decode("utf-8", errors="replace")
    cut = f"\n(cut: {len(data) - FILE_LIMIT} more bytes)" if len(data) > FILE_LIMIT else ""
    return f"```{skill.name}/{wanted}\n{text}{cut}\n```"


@hookimpl
def tai_register_block_kinds(register: Callable[[BlockKind], None]) -> None:
    """Register the skill kind."""
    register(SkillKind())


@hookimpl
def tai_system_prompt(command: str, cwd: str, config: Mapping[str, Any]) -> str | None:
    """The index of the skills the model may load here."""
    del command, config
    return index(_offered(Path(cwd)))
