"""Finding and reading skills: directories with a ``SKILL.md``.

A skill is a directory holding ``SKILL.md`` (YAML frontmatter with ``name`` and
``description``, then the instructions) and any files it refers to (``scripts/``,
``references/``, ``assets/`` …), the format Claude Code and others use, so a skill
written for them works here. Where skills are found, each later one replacing an earlier
one of the same name:

* skills shipped by installed packages: the entry-point group ``tai_skills``, each entry a
  package (or ``package:subdirectory``) whose directory holds skill directories;
* the user's, in ``skills/`` of tai's configuration directory;
* the project's, in ``.tai/skills/`` of each directory from the repository's root down to
  the working directory.

A skill directory whose ``SKILL.md`` cannot be read is one warning naming the file and
line; the others load. Reading happens once per process and directory, and only when a
skills directory exists (no YAML is imported otherwise).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path

import attrs

from tai_core.config import PROJECT_DIR, project_directories, user_config_dir
from tai_core.plugins import find_entry_points

#: The file that makes a directory a skill.
SKILL_FILE = "SKILL.md"
#: The entry-point group of packages that ship skills.
ENTRY_POINT_GROUP = "tai_skills"
#: A skill's name: lowercase letters, digits and single hyphens.
NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
NAME_LIMIT = 64
DESCRIPTION_LIMIT = 1024
#: The longest body (characters) a skill may have: a skill is loaded whole.
BODY_LIMIT = 20_000
#: Directories a skill's file listing leaves out.
NOISE = frozenset({".git", "__pycache__", "node_modules", ".venv"})


@attrs.frozen
class Skill:
    """A skill: its name, what it is for, its instructions and its directory."""

    name: str
    description: str
    body: str
    directory: Path
    #: Whether the model's index lists it (``disable-model-invocation`` turns it off).
    model_invocable: bool = True

    def files(self) -> list[str]:
        """The skill's other files, relative to its directory, sorted."""
        found = []
        for path in sorted(self.directory.rglob("*")):
            relative = path.relative_to(self.directory)
            if path.is_file() and path.name != SKILL_FILE and not NOISE & set(relative.parts):
                found.append(relative.as_posix())
        return found


def read_skill(directory: Path) -> Skill:
    """The skill in ``directory``; :class:`tai_frontmatter.FormatError` when its
    ``SKILL.md`` cannot be read."""
    from tai_frontmatter import FormatError, flag, read_document, text

    document = read_document(directory / SKILL_FILE)
    name = text(document, "name", required=True, limit=NAME_LIMIT)
    if not NAME.match(name):
        raise FormatError(
            document.path, document.line_of("name"),
            f"'name' must be lowercase letters and digits joined by single hyphens, not {name!r}",
        )  # fmt: skip
    if len(document.body) > BODY_LIMIT:
        raise FormatError(
            document.path, document.body_line,
            f"the instructions are longer than {BODY_LIMIT} characters: move detail into files",
        )  # fmt: skip
    return Skill(
        name=name,
        description=text(document, "description", required=True, limit=DESCRIPTION_LIMIT),
        body=document.body,
        directory=directory,
        model_invocable=not flag(document, "disable-model-invocation", False),
    )


def _packaged() -> list[Path]:
    roots = []
    for entry in find_entry_points(ENTRY_POINT_GROUP):
        from importlib import resources  # ~9 ms: only when a package ships skills

        package, _, subdirectory = entry.value.partition(":")
        try:
            root = Path(str(resources.files(package))) / subdirectory
        except (ModuleNotFoundError, TypeError):
            continue
        roots.append(root)
    return roots


def roots(cwd: Path) -> list[Path]:
    """The directories that hold skill directories, in order (a later skill wins)."""
    project = [directory / PROJECT_DIR / "skills" for directory in project_directories(cwd)]
    return [*_packaged(), user_config_dir() / "skills", *project]


def discovered(cwd: Path, warn: Callable[[str], None]) -> dict[str, Skill]:
    """The skills that apply in ``cwd``, by name; a skill that cannot be read is one
    ``warn`` line, and the others still load."""
    skills: dict[str, Skill] = {}
    for root in roots(cwd):
        try:
            files = sorted(p / SKILL_FILE for p in root.iterdir() if (p / SKILL_FILE).is_file())
        except OSError:
            continue
        from tai_frontmatter import loaded  # only where there are skills to read

        for skill in loaded(files, lambda file: read_skill(file.parent), "skill", warn):
            skills[skill.name] = skill
    return skills


@functools.cache
def applying(cwd: Path, warn: Callable[[str], None]) -> dict[str, Skill]:
    """:func:`discovered`, once per process and directory."""
    return discovered(cwd, warn)
