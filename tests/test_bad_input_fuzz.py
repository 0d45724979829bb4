"""Fuzzed input fed to the real commands: never a traceback, never a hang, never success
on garbage (DESIGN §4.6).

Each example is a subprocess of the ``tai`` executable, so the counts stay modest. The
generators know which inputs cannot be valid — bytes that are not UTF-8, text that is not
TOML, numbers out of range — and only those are required to fail; everything else may
succeed or fail, but with one readable message.
"""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import tai_executable

#: Each example runs tai in a process of its own.
pytestmark = pytest.mark.slow

FUZZ = settings(
    max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None
)

#: Byte sequences that make any text that holds them invalid UTF-8.
NOT_UTF8 = st.sampled_from([b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x80"])

#: Text with what breaks naive readers: \r, NUL, control characters, astral characters.
TRICKY_TEXT = st.lists(
    st.sampled_from(["a", "Z", " ", "\n", "\r", "\r\n", "\t", "\0", "\x1c", "\u2028", "é", "𝄞",
                     "<<", '"', "=", "[", "]", "甲乙"]),
    max_size=30,
).map("".join)  # fmt: skip


def _tai(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """Run tai; a hang over 10 s fails the test (``TimeoutExpired``)."""
    return subprocess.run(
        [tai_executable(), *args], cwd=cwd, env=env, capture_output=True, timeout=10
    )


def _check(result: subprocess.CompletedProcess[bytes], garbage: bool) -> None:
    stderr = result.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr
    if garbage:
        assert result.returncode != 0, stderr
    if result.returncode != 0:  # says why (tai parse lists the problems on stdout)
        assert (stderr + result.stdout.decode("utf-8", "replace")).strip()


def _fresh(base: Path, name: str) -> Path:
    directory = base / name
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir()
    return directory


def _spoil(data: bytes, bad: bytes, where: int) -> bytes:
    at = where % (len(data) + 1)
    return data[:at] + bad + data[at:]


#: A configuration line and whether it cannot be valid.
_NUMBER_KEYS = (
    "shell_timeout", "go_test_timeout", "pytest_timeout", "ingest_timeout", "schedule_interval",
)  # fmt: skip
_SIZE_KEYS = ("max_context_bytes", "ingest_max_bytes", "max_tokens")


@st.composite
def config_files(draw: st.DrawFn) -> tuple[bytes, bool]:
    """A ``tai.toml`` and whether it is garbage."""
    lines: list[str] = []
    garbage = False
    for _ in range(draw(st.integers(0, 4))):
        choice = draw(st.integers(0, 3))
        if choice == 0:
            value = draw(st.floats(allow_nan=True, allow_infinity=True))
            text = "nan" if math.isnan(value) else repr(value).replace("inf", "inf")
            lines.append(f"{draw(st.sampled_from(_NUMBER_KEYS))} = {text}")
            garbage |= not (math.isfinite(value) and value > 0)
        elif choice == 1:
            value = draw(st.integers(-(2**40), 2**40))
            lines.append(f"{draw(st.sampled_from(_SIZE_KEYS))} = {value}")
            garbage |= value <= 0
        elif choice == 2:
            lines.append(f"model = {_toml_string(draw(TRICKY_TEXT))}")
        else:
            lines.append(f"durable = {draw(st.sampled_from(['true', 'false']))}")
    keys = [line.split(" = ")[0] for line in lines]
    if len(set(keys)) != len(keys):
        garbage = True  # TOML forbids a key twice
    data = "\n".join(lines).encode() + b"\n"
    spoil = draw(st.sampled_from(["none", "bytes", "toml"]))
    if spoil == "bytes":
        data, garbage = _spoil(data, draw(NOT_UTF8), draw(st.integers(0, 10**6))), True
    elif spoil == "toml":
        data, garbage = data + b"= =\n", True
    return data, garbage


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string (control characters escaped)."""
    escaped = "".join(
        f"\\u{ord(char):04x}" if ord(char) < 0x20 or char in '"\\\x7f' else char for char in text
    )
    return f'"{escaped}"'


@FUZZ
@given(config=config_files())
def test_fuzzed_configuration(
    tmp_path: Path, isolated_env: dict[str, str], config: tuple[bytes, bool]
) -> None:
    data, garbage = config
    work = _fresh(tmp_path, "work")
    (work / "tai.toml").write_bytes(data)
    (work / "reply.txt").write_text("")
    _check(_tai(["parse", "reply.txt"], work, isolated_env), garbage)  # needs the file
    mending = _tai(["plugins"], work, isolated_env)  # runs while the file is mended
    assert mending.returncode == 0 and b"Traceback" not in mending.stderr, mending.stderr
    assert (b"its settings are ignored here" in mending.stderr) is garbage


@st.composite
def replies(draw: st.DrawFn) -> tuple[bytes, bool]:
    """A model's reply (change blocks, prose, broken blocks) and whether it is garbage."""
    pieces = []
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from(["a.txt", "d/b.txt", "../x", "a" * 300, "a\0b", "", "."]))
        op = draw(st.sampled_from(["WRITE", "REPLACE", "DELETE", "BOGUS"]))
        body = draw(TRICKY_TEXT)
        close = draw(st.sampled_from(["甲乙", "甲乙\r", "", "乙甲"]))
        pieces.append(f'<<甲乙 change(op="{op}", find="a", file-path="{path}")\n{body}\n{close}\n')
        pieces.append(draw(TRICKY_TEXT))
    data = "".join(pieces).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        return _spoil(data, draw(NOT_UTF8), draw(st.integers(0, 10**6))), True
    return data, False


@FUZZ
@given(reply=replies())
def test_fuzzed_replies_to_tai_parse(
    tmp_path: Path, isolated_env: dict[str, str], reply: tuple[bytes, bool]
) -> None:
    data, garbage = reply
    work = _fresh(tmp_path, "work")
    (work / "reply.txt").write_bytes(data)
    _check(_tai(["parse", "reply.txt"], work, isolated_env), garbage)


@FUZZ
@given(reply=replies())
def test_fuzzed_ai_files_to_tai_patch(
    tmp_path: Path, isolated_env: dict[str, str], reply: tuple[bytes, bool]
) -> None:
    data, garbage = reply
    work = _fresh(tmp_path, "work")
    (work / "a.txt").write_text("a\n")
    (work / ".AI").write_bytes(data)
    result = _tai(["patch"], work, isolated_env)
    _check(result, garbage)
    if garbage:
        assert (work / "a.txt").read_text() == "a\n" and (work / ".AI").read_bytes() == data


@pytest.mark.parametrize("bad", [b"\xff", b"\xed\xa0\x80"])
def test_tai_parse_of_standard_input_that_is_not_utf8(
    tmp_path: Path, isolated_env: dict[str, str], bad: bytes
) -> None:
    result = subprocess.run(
        [tai_executable(), "parse"], cwd=tmp_path, env=isolated_env, input=b"ok\n" + bad,
        capture_output=True, timeout=10,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.decode().startswith("tai: error: standard input: line 2: not UTF-8 text")


@settings(max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reply=replies())
def test_fuzzed_replies_in_a_real_run(
    tmp_path: Path, isolated_env: dict[str, str], reply: tuple[bytes, bool]
) -> None:
    """The replay model sends the reply through the whole pipeline (a second reply ends
    the run, whatever the first one asked for)."""
    data, garbage = reply
    work = _fresh(tmp_path, "work")
    (work / "a.txt").write_text("a\n")
    summary = "<<松柏 summary\n- done\n松柏\n".encode()
    transcript = b"@@@ reply\n" + data + b"\n" + summary + (b"@@@ reply\n" + summary) * 3
    (work / "model.replay").write_bytes(transcript)
    result = _tai(["-model", "replay:model.replay", "chat", "go"], work, isolated_env)
    _check(result, garbage)
