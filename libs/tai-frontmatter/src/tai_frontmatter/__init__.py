"""Markdown declarations: YAML frontmatter between ``---`` lines, then a body.

Agent commands (``*.agent.md``) and skills (``SKILL.md``) are written this way, as Claude
Code, Copilot and tau write theirs, so one file serves several tools. This library reads
such a file into a :class:`Document` and checks its fields (:func:`text`, :func:`flag`,
:func:`words`), and compiles a body into a template (:func:`template`); it knows neither
agent commands nor skills, so both plugins share it without depending on each other.

Every error is one :class:`FormatError` naming the file and the line (a field's own line,
the template's line in the file), so that a user can fix it at once, and a caller can skip
that one file and load the others.

Why PyYAML: the reference YAML parser of Python (``safe_load`` only: no tag constructs an
object), with the line of each error. A frontmatter written for another tool often has an
unquoted colon in a value (``description: Plan: step by step``), which YAML refuses; such
a line is read again with its value quoted before the error is reported.

Why Jinja2, sandboxed: the template language Python's tools share, and its
``SandboxedEnvironment`` refuses attribute access to internals, so a template cannot reach
beyond the data it is given. Undefined names are errors when the template renders, not
empty strings: a misspelt ``{{ argumnets }}`` says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

import attrs

T = TypeVar("T")

#: A ``key: value`` line of the frontmatter whose value may need quoting.
_PLAIN = re.compile(r"^(?P<key>[A-Za-z][\w-]*):[ \t]+(?P<value>[^\s'\"\[{|>&*!#].*)$")


class FormatError(Exception):
    """What is wrong with a declaration, at ``path``'s line ``line``."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(path, line, message)
        self.path = path
        self.line = line
        self.message = message

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@attrs.frozen
class Document:
    """A declaration: its ``fields`` (the frontmatter), its ``body`` and where the body
    starts in the file (``body_line``, 1-based)."""

    path: str
    fields: Mapping[str, Any]
    body: str
    body_line: int
    #: Each field's line in the file.
    lines: Mapping[str, int] = attrs.field(factory=dict)

    def line_of(self, key: str) -> int:
        """The line of field ``key`` (the frontmatter's first line when it is missing)."""
        return self.lines.get(key, 1)


def _load_yaml(text: str) -> Any:
    import yaml

    return yaml.safe_load(text)


def _quoted(text: str) -> str:
    """``text`` with each plain ``key: value`` line's value quoted, if it holds ``: ``."""
    lines = []
    for line in text.splitlines():
        found = _PLAIN.match(line)
        quote = found is not None and ": " in found["value"]
        lines.append(f"{found['key']}: {json.dumps(found['value'].rstrip())}" if quote else line)
    return "\n".join(lines)


def _fields(path: str, header: str) -> Mapping[str, Any]:
    import yaml

    try:
        fields = _load_yaml(header)
    except yaml.YAMLError:
        try:  # the same lines, unquoted colons quoted: its error is the one to fix
            fields = _load_yaml(_quoted(header))
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            line = mark.line + 2 if mark is not None else 1
            problem = getattr(error, "problem", None) or str(error)
            raise FormatError(path, line, f"the frontmatter is not YAML: {problem}") from None
    if fields is None:
        return {}
    if not isinstance(fields, dict):
        raise FormatError(path, 2, "the frontmatter must be a mapping of keys to values")
    return fields


def parse_document(text: str, path: str) -> Document:
    """The declaration ``text`` (the content of the file at ``path``)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise FormatError(path, 1, "no frontmatter: the file must begin with a line '---'")
    try:
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == "---")
    except StopIteration:
        raise FormatError(path, 1, "the frontmatter has no closing line '---'") from None
    header = "\n".join(lines[1:end])
    positions = {}
    for number, line in enumerate(lines[1:end], 2):
        key = line.split(":", 1)[0]
        if ":" in line and key and not key[0].isspace():
            positions.setdefault(key.strip(), number)
    body = "\n".join(lines[end + 1 :]).strip("\n")
    return Document(path, _fields(path, header), body, end + 2, positions)


def read_document(path: Path) -> Document:
    """The declaration in the file ``path`` (UTF-8)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise FormatError(str(path), 1, f"not UTF-8 text: {error.reason}") from None
    return parse_document(text, str(path))


def loaded(
    paths: Iterable[Path], read: Callable[[Path], T], what: str, warn: Callable[[str], None]
) -> Iterator[T]:
    """``read(path)`` of each of ``paths``; a file that cannot be read is one ``warn`` line
    (``FILE:LINE: why; the WHAT is not loaded``), and the others still load."""
    for path in paths:
        try:
            yield read(path)
        except FormatError as error:
            warn(f"{error}; the {what} is not loaded")
        except OSError as error:
            warn(f"{path}: {error.strerror}; the {what} is not loaded")


def text(document: Document, key: str, *, required: bool = False, limit: int = 0) -> str:
    """Field ``key`` as a string (``""`` when absent and not ``required``)."""
    value = document.fields.get(key)
    if value is None:
        if required:
            raise FormatError(document.path, document.line_of(key), f"'{key}' is required")
        return ""
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise FormatError(document.path, document.line_of(key), f"'{key}' must be text")
    result = str(value).strip()
    if limit and len(result) > limit:
        raise FormatError(
            document.path, document.line_of(key), f"'{key}' is longer than {limit} characters"
        )
    return result


def flag(document: Document, key: str, default: bool) -> bool:
    """Field ``key`` as true or false."""
    value = document.fields.get(key, default)
    if not isinstance(value, bool):
        raise FormatError(document.path, document.line_of(key), f"'{key}' must be true or false")
    return value


def words(document: Document, key: str) -> tuple[str, ...]:
    """Field ``key`` as names: a YAML list, or one string of names separated by commas
    or spaces."""
    value = document.fields.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(word for word in re.split(r"[,\s]+", value) if word)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(item.strip() for item in value if item.strip())
    raise FormatError(document.path, document.line_of(key), f"'{key}' must be a list of names")


def template(document: Document) -> Callable[[Mapping[str, Any]], str]:
    """The document's body compiled as a sandboxed Jinja2 template: a function of the
    data it renders with. A syntax error is raised now, with its line in the file."""
    from jinja2 import StrictUndefined, TemplateSyntaxError
    from jinja2.sandbox import SandboxedEnvironment

    environment = SandboxedEnvironment(
        undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False
    )
    try:
        compiled = environment.from_string(document.body)
    except TemplateSyntaxError as error:
        line = document.body_line + (error.lineno or 1) - 1
        raise FormatError(document.path, line, f"template: {error.message}") from None

    def render(data: Mapping[str, Any]) -> str:
        return compiled.render(**data).strip()

    return render
