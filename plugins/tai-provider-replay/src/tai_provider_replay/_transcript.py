"""Reading and playing replay transcripts (the format is in :mod:`tai_provider_replay`).

Parsing is strict where a typo would silently change a test — an unknown or malformed
directive, text before the first reply — and every error names the file and the line.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from tai_core.models import (
    Finish,
    GenerationRequest,
    ModelConfigError,
    ModelSpec,
    Prices,
    StreamEvent,
    TextDelta,
    ThoughtDelta,
    Usage,
)
from tai_provider_kit._faults import failure, retryable_status

if TYPE_CHECKING:
    from tai_provider_replay import ReplayProvider

REPLY = "@@@ reply"
DIRECTIVE = "@@@ "
CONTEXT_TOKENS = 1_000_000
USAGE_KEYS = ("input", "output", "cache_read", "cache_write", "reasoning")
DIRECTIVES = "expect user:, expect system:, thought:, usage, finish, error, chunk"


class TranscriptError(Exception):
    """A transcript that cannot be played; the message names file and line."""


@attrs.frozen
class ScriptedReply:
    """One reply of a transcript; ``line`` is the line of its ``@@@ reply``."""

    line: int
    text: str = ""
    thought: str = ""
    expect_user: tuple[str, ...] = ()
    expect_system: tuple[str, ...] = ()
    usage: Mapping[str, int] = attrs.field(factory=dict)
    finish: str = "stop"
    error: tuple[int, str] | None = None
    chunk: int = 16


def _directive(reply: ScriptedReply, words: str, where: str) -> ScriptedReply:
    """``reply`` with the directive ``words`` (the line without ``@@@ ``) applied."""
    name, _, rest = words.partition(" ")
    for prefix, field in (("expect user:", "expect_user"), ("expect system:", "expect_system")):
        if words.startswith(prefix):
            wanted = words.removeprefix(prefix).strip()
            if not wanted:
                raise TranscriptError(f"{where}: {prefix} needs a text")
            return attrs.evolve(reply, **{field: (*getattr(reply, field), wanted)})
    if name == "thought:":
        joined = f"{reply.thought}\n{rest}" if reply.thought else rest
        return attrs.evolve(reply, thought=joined)
    if name == "usage":
        counts = dict(reply.usage)
        for item in rest.split():
            key, _, value = item.partition("=")
            if key not in USAGE_KEYS or not value.isdigit():
                raise TranscriptError(
                    f"{where}: usage takes KEY=N with KEY one of "
                    f"{', '.join(USAGE_KEYS)}, not {item!r}"
                )
            counts[key] = int(value)
        return attrs.evolve(reply, usage=counts)
    if name == "finish" and rest.strip():
        return attrs.evolve(reply, finish=rest.strip())
    if name == "error":
        status, _, message = rest.partition(" ")
        if not (status.isdigit() and len(status) == 3):
            raise TranscriptError(
                f"{where}: error takes STATUS MESSAGE, e.g. '@@@ error 429 slow down'"
            )
        return attrs.evolve(reply, error=(int(status), message.strip() or "scripted error"))
    if name == "chunk" and rest.strip().isdigit() and int(rest) > 0:
        return attrs.evolve(reply, chunk=int(rest))
    raise TranscriptError(
        f"{where}: unknown or malformed directive {DIRECTIVE + words!r} (directives: {DIRECTIVES})"
    )


def _text(lines: list[str]) -> str:
    text = "".join(lines)
    trimmed = text.rstrip("\r\n")
    return trimmed + "\n" if trimmed and trimmed != text else trimmed


def parse(path: Path) -> tuple[ScriptedReply, ...]:
    """The replies of the transcript at ``path``."""
    from tai_core.textfile import NotUTF8Error, read_utf8

    try:
        # Split at \n only: a reply's \r (and \f, \x1c, U+2028, which splitlines also
        # splits at) is the reply's text, to reach the parser as a model would send it.
        lines = read_utf8(path).split("\n")
    except NotUTF8Error as error:
        raise TranscriptError(f"{error}: a transcript is UTF-8") from None
    except OSError as error:
        raise TranscriptError(f"{path}: cannot read the transcript: {error.strerror}") from None
    lines = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    replies: list[ScriptedReply] = []
    body: list[str] = []
    for number, line in enumerate(lines, 1):
        bare = line.rstrip("\r\n")
        if bare.rstrip() == REPLY:
            if replies:
                replies[-1] = attrs.evolve(replies[-1], text=_text(body))
            replies.append(ScriptedReply(line=number))
            body = []
        elif not replies:
            if bare.strip() and not bare.startswith("#"):
                raise TranscriptError(
                    f"{path}:{number}: text before the first '{REPLY}' "
                    "(only blank lines and # comments may come first)"
                )
        elif bare.startswith(DIRECTIVE):
            replies[-1] = _directive(replies[-1], bare.removeprefix(DIRECTIVE), f"{path}:{number}")
        else:
            body.append(line)
    if not replies:
        raise TranscriptError(f"{path}: no '{REPLY}' line: the transcript has no replies")
    replies[-1] = attrs.evolve(replies[-1], text=_text(body))
    return tuple(replies)


def transcript_spec(provider: ReplayProvider, name: str, fields: Mapping[str, Any]) -> ModelSpec:
    """The spec of the transcript named by ``fields["model"]``; parses it (and keeps the
    replies in ``provider``) so that a broken file fails before the run starts."""
    given = str(fields.get("model") or "")
    if not given:
        raise ModelConfigError(f"model {name!r} (replay) names no transcript: use replay:PATH")
    path = Path(given).expanduser().resolve()
    if not path.is_file():
        hidden = ""
        inside = os.environ.get("TAI_IN_SANDBOX") == "1"  # set by the sandbox plugin inside it
        private = any(path.is_relative_to(scratch) for scratch in (Path("/tmp"), Path("/dev/shm")))
        if inside and private and not path.is_relative_to(Path.cwd().resolve()):  # hidden
            hidden = (
                " here, inside tai's sandbox, whose /tmp is a fresh one: keep the transcript "
                "in the working directory (or run with -no-sandbox)"
            )
        raise ModelConfigError(f"model {name!r}: replay transcript {path} does not exist{hidden}")
    try:
        provider.transcripts[str(path)] = parse(path)
    except TranscriptError as error:
        raise ModelConfigError(f"model {name!r}: {error}") from error
    return ModelSpec(
        name=name,
        provider=provider.name,
        type=str(fields.get("type") or "replay"),
        model=str(path),
        context_tokens=fields.get("context_tokens", CONTEXT_TOKENS),
        max_generate_tokens=fields.get("max_generate_tokens"),
        zero_data_retention=True,
        prices=Prices(input=0.0, output=0.0),
    )


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _usage(reply: ScriptedReply, request: GenerationRequest) -> Usage:
    sent = len(request.system) + sum(len(message.text) for message in request.messages)
    counts = {"input": sent // 4, "output": (len(reply.text) + len(reply.thought)) // 4}
    counts.update(reply.usage)
    return Usage(**counts)


def _check(spec: ModelSpec, number: int, reply: ScriptedReply, request: GenerationRequest) -> None:
    last_user = next((m.text for m in reversed(request.messages) if m.role == "user"), "")
    for what, wanted, actual in [
        *(("last user message", text, last_user) for text in reply.expect_user),
        *(("system prompt", text, request.system) for text in reply.expect_system),
    ]:
        if wanted not in actual:
            shown = actual if len(actual) <= 200 else actual[:100] + " … " + actual[-100:]
            raise failure(
                spec,
                f"reply {number} (line {reply.line}): expected the {what} "
                f"to contain {wanted!r}; it was {shown!r}",
            )


async def play(
    provider: ReplayProvider, spec: ModelSpec, request: GenerationRequest
) -> AsyncIterator[StreamEvent]:
    """Stream the next reply of ``spec``'s transcript."""
    replies = provider.transcripts.get(spec.model)
    if replies is None:
        try:
            replies = provider.transcripts[spec.model] = parse(Path(spec.model))
        except TranscriptError as error:
            raise failure(spec, str(error)) from error
    index = provider.positions.get(spec.model, 0)
    provider.positions[spec.model] = index + 1
    if index >= len(replies):
        raise failure(spec, f"call {index + 1} has no reply: the transcript has {len(replies)}")
    reply: ScriptedReply = replies[index]
    _check(spec, index + 1, reply, request)
    for piece in _pieces(reply.thought, reply.chunk):
        yield ThoughtDelta(piece)
    for piece in _pieces(reply.text, reply.chunk):
        yield TextDelta(piece)
    if reply.error is not None:
        status, message = reply.error
        raise failure(spec, message, status=status, retryable=retryable_status(status))
    yield _usage(reply, request)
    yield Finish(reply.finish)
