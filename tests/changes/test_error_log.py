"""The error log of a failed change: name, fields, collisions."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path

import pytest

from tai_changes import ChangeError, apply_change
from tai_changes._error_log import write_error_log
from tai_core.store import FileStore

from .conftest import block, write_files

FIELDS = dict(
    operation="MODIFY",
    target="Foo",
    file_path="a.go",
    find="",
    change_block="func Foo() {",
    source_file="package a\n",
    modified_file="package a\n\nfunc Foo() {\n",
    error="the result is not valid Go",
)


def test_log_name_fields_and_collisions(tmp_path: Path) -> None:
    moment = datetime(2026, 1, 2, 3, 4, 5).astimezone()
    paths = [write_error_log(tmp_path, now=moment, **FIELDS) for _ in range(3)]
    assert [p.name for p in paths] == [
        ".error-log.20260102-030405.xml",
        ".error-log.20260102-030405-1.xml",
        ".error-log.20260102-030405-2.xml",
    ]
    root = ET.parse(paths[0]).getroot()
    assert root.tag == "error-log"
    assert [child.tag for child in root] == [
        "timestamp", "operation", "target", "file-path", "change-block",
        "source-file", "modified-file", "error",
    ]  # fmt: skip
    assert root.findtext("timestamp") == moment.isoformat(timespec="seconds")
    assert root.findtext("modified-file") == FIELDS["modified_file"]


def test_find_and_unprintable_characters(tmp_path: Path) -> None:
    fields = {**FIELDS, "find": "x < y && z", "source_file": "a\x00b\x1b"}
    root = ET.parse(write_error_log(tmp_path, **fields)).getroot()
    assert root.findtext("find") == "x < y && z"
    assert root.findtext("source-file") == "a\ufffdb\ufffd"


def test_a_failed_apply_on_content_writes_a_log_named_in_the_error(tmp_path: Path) -> None:
    write_files(tmp_path, {"notes.md": "alpha\n"})
    with pytest.raises(ChangeError) as caught:
        apply_change(FileStore.open(tmp_path), block("REPLACE", "notes.md", "beta", find="gamma"))
    assert caught.value.log is not None
    assert re.fullmatch(r"\.error-log\.\d{8}-\d{6}(-\d+)?\.xml", caught.value.log)
    assert str(caught.value).endswith(f"(details in {caught.value.log})")
    root = ET.parse(tmp_path / caught.value.log).getroot()
    assert root.findtext("operation") == "REPLACE"
    assert root.findtext("find") == "gamma"
    assert root.findtext("change-block") == "beta"
    assert root.findtext("source-file") == "alpha\n"
    assert root.findtext("error") == "find text not found"


def test_errors_without_content_write_no_log(tmp_path: Path) -> None:
    with pytest.raises(ChangeError) as caught:
        apply_change(FileStore.open(tmp_path), block("WRITE", "../outside.txt", "x"))
    assert caught.value.log is None
    assert list(tmp_path.iterdir()) == []
