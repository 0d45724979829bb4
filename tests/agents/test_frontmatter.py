"""Markdown declarations: fields, body, templates; every error names file and line, and no
input makes the reader fail any other way."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tai_frontmatter import FormatError, flag, parse_document, template, text, words

GOOD = """\
---
name: review
description: Review: carefully, step by step
tools: response, shell
user-invocable: false
---

You review {{ arguments }} in {{ cwd }}.
"""


def test_fields_body_and_lines() -> None:
    document = parse_document(GOOD, "review.agent.md")
    assert text(document, "name", required=True) == "review"
    assert text(document, "description") == "Review: carefully, step by step"  # unquoted colon
    assert words(document, "tools") == ("response", "shell")
    assert flag(document, "user-invocable", True) is False
    assert flag(document, "disable-model-invocation", False) is False
    assert document.body == "You review {{ arguments }} in {{ cwd }}."
    assert document.body_line == 7
    rendered = template(document)({"arguments": "the diff", "cwd": "/w"})
    assert rendered == "You review the diff in /w."


@pytest.mark.parametrize(
    ("source", "where", "message"),
    [
        ("no frontmatter\n", 1, "no frontmatter"),
        ("---\nname: x\n", 1, "no closing line"),
        ("---\nname: x\ntools: [a\n---\n", 3, "not YAML"),
        ("---\n- a\n- b\n---\n", 2, "must be a mapping"),
        ("---\nname: x\ndescription: [1, 2]\n---\n", 3, "'description' must be text"),
        ("---\nname: x\nuser-invocable: maybe\n---\n", 3, "must be true or false"),
        ("---\nname: x\ntools: {a: 1}\n---\n", 3, "must be a list of names"),
        ("---\ndescription: d\n---\n", 1, "'name' is required"),
        ("---\nname: x\n---\nline one\n{% if x %}\nbody\n", 5, "template:"),
    ],
)
def test_each_error_names_the_file_and_the_line(source: str, where: int, message: str) -> None:
    with pytest.raises(FormatError) as caught:
        document = parse_document(source, "a.agent.md")
        text(document, "name", required=True)
        text(document, "description")
        flag(document, "user-invocable", True)
        words(document, "tools")
        template(document)
    assert caught.value.path == "a.agent.md"
    assert caught.value.line == where, str(caught.value)
    assert message in str(caught.value)
    assert str(caught.value).startswith(f"a.agent.md:{where}: ")


def test_a_template_cannot_reach_beyond_its_data() -> None:
    from jinja2.exceptions import SecurityError

    body = "{{ cwd.__class__.__mro__[1].__subclasses__() }}"
    document = parse_document(f"---\nname: x\n---\n{body}", "x")
    with pytest.raises(SecurityError):
        template(document)({"cwd": "/w"})


def test_an_undefined_name_is_an_error_when_it_renders() -> None:
    from jinja2.exceptions import UndefinedError

    render = template(parse_document("---\nname: x\n---\n{{ argumnets }}", "x"))
    with pytest.raises(UndefinedError, match="argumnets"):
        render({"arguments": "a"})


@given(st.text(max_size=400))
def test_any_text_is_a_document_or_a_format_error(source: str) -> None:
    try:
        document = parse_document(source, "fuzz.md")
        text(document, "name")
        words(document, "tools")
        template(document)
    except FormatError as error:
        assert error.line >= 1


@given(st.lists(st.sampled_from(["name: a", "tools: [x, y]", "k: v: w", "- item", "  x: 1",
                                 "a: 'q", "b: |", "  text", "c: !!python/object:os.system x",
                                 "", "#", "d: {e: 1}"]), max_size=8))  # fmt: skip
def test_frontmatter_lines_never_fail_another_way(lines: list[str]) -> None:
    try:
        parse_document("---\n" + "\n".join(lines) + "\n---\nbody\n", "fuzz.md")
    except FormatError as error:
        assert 1 <= error.line <= len(lines) + 2
