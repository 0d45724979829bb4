"""The any-text context provider: the files in focus, whole, within a byte budget.

Within ``request.max_tokens`` (the model's window) the budget shrinks to fit: file parts
get nine tenths of it (bytes are at least characters, so a byte budget never
underestimates), the closing list of the files left out the rest, cut short with a count
when it would not fit.

Secret files (``request.secret``) are withheld before anything else: a file named like a
secret is never read, one whose content holds a credential is read but not shown, and
both are named in the prompt's closing list; they spend nothing of the budget.
"""

from __future__ import annotations

from pathlib import Path

from tai_core.context import (
    TIER_CONTEXT,
    TIER_HINTS,
    ContextPart,
    ContextRequest,
    SelectionError,
    judged,
    matches,
    withheld,
)
from tai_text._text import (
    binary_note,
    decode_text,
    file_block,
    has_binary_head,
    read_data,
)
from tai_text._walk import Found, Ignores, PatternError, Walker, shown_path

#: The default of ``max_context_bytes``: the total size of file parts.
DEFAULT_MAX_CONTEXT_BYTES = 400_000
#: Characters kept for the working-directory hint within ``max_tokens``.
WORKING_DIRECTORY = 4096


def _files(request: ContextRequest) -> list[Found]:
    """Every file the focus patterns name, filtered by ``match``, sorted by shown path."""
    walker = Walker(request.cwd, Ignores(request.cwd, request.ignore))
    found: dict[str, Found] = {}
    for pattern in request.focus or (".",):
        try:
            items = walker.expand(pattern)
        except PatternError as error:
            raise SelectionError(f"focus pattern {error}") from None
        found.update((item.shown, item) for item in items)
    expressions = request.match_expressions()

    def keeps(shown: str) -> bool:
        return matches(shown, expressions)

    if found:  # an empty directory has nothing to match: not the pattern's fault
        request.check_matched(found, keeps)
    return [found[shown] for shown in sorted(found) if keeps(shown)]


def secret_by_name(item: Found, request: ContextRequest) -> str | None:
    """Why ``item`` is withheld by its name: the path it is shown under or, reached through
    a symbolic link, the path of what the link leads to (``notes -> ~/.aws/credentials``)."""
    real = shown_path(item.path.resolve(), request.cwd.resolve())
    return judged(request.secret, item.shown, real)


def _render(item: Found, request: ContextRequest, room: int) -> ContextPart | None:
    """The part of ``item`` (the withheld part when its content holds a secret), or
    ``None`` when it cannot fit in ``room`` bytes."""
    read_only = not request.is_writable(item.path.resolve())
    try:
        if item.size > room and not has_binary_head(item.path):
            return None  # text at least as long as the file: do not read it
        data = read_data(item.path)
        content = None if data is None else decode_text(data)
        if data is not None and content is not None:
            reason = request.secret(item.shown, data)
            if reason:
                return withheld(item.shown, reason)
    except OSError as error:
        text = f"``` file {item.shown}: not readable ({error.strerror}), content omitted\n"
    else:
        text = (
            binary_note(item.shown, item.size, read_only=read_only)
            if content is None
            else file_block(item.shown, content, read_only=read_only)
        )
    if len(text.encode("utf-8")) > room:
        return None
    return ContextPart(TIER_CONTEXT, item.shown, text, path=item.shown, read_only=read_only)


def _not_included(names: list[str], budget: int, room: int | None) -> ContextPart:
    """The closing list of the files left out, within ``room`` characters when given."""
    head = (
        f"Files not included (the context budget of {budget} bytes is spent); "
        "fetch what you need with an ingest block:\n"
    )
    listing, used = [], len(head) + 100
    for index, name in enumerate(names):
        if room is not None and used + len(name) + 3 > room:
            listing.append(
                f"- and {len(names) - index} more (list them with an ingest <glob> block)\n"
            )
            break
        listing.append(f"- {name}\n")
        used += len(name) + 3
    return ContextPart(TIER_HINTS, "not-included", head + "".join(listing))


def _working_directory(cwd: Path) -> ContextPart:
    text = (
        f"The working directory is {cwd}. File paths above are relative to it; "
        "use paths relative to it in your blocks.\n"
    )
    return ContextPart(TIER_HINTS, "working-directory", text)


class AnyTextProvider:
    """Context for any directory: the text files in focus, whole (the fallback provider)."""

    name = "any"
    description = "any text files: the files in focus whole, .gitignore honoured, byte budget"

    def applies(self, cwd: Path) -> bool:
        """Always: this is the provider of last resort, asked after the Go provider."""
        del cwd
        return True

    def collect(self, request: ContextRequest) -> tuple[ContextPart, ...]:
        """File parts in path order until the budget is spent, then the list of the files
        left out, then the working-directory hint; secret files as withheld parts."""
        budget = int(request.config.get("max_context_bytes", DEFAULT_MAX_CONTEXT_BYTES))
        room = None if request.max_tokens is None else request.max_tokens * 4 - WORKING_DIRECTORY
        if room is not None:  # a tenth of the window's room for the list of what is left out
            budget = max(0, min(budget, room - room // 10))
        parts: list[ContextPart] = []
        left_out: list[str] = []
        used = 0
        for item in _files(request):
            reason = secret_by_name(item, request)
            if reason:
                parts.append(withheld(item.shown, reason))
                continue
            part = None if left_out else _render(item, request, budget - used)
            if part is None:
                left_out.append(item.shown)
                continue
            parts.append(part)
            used += len(part.text.encode("utf-8"))
        if left_out:
            parts.append(_not_included(left_out, budget, None if room is None else room - used))
        parts.append(_working_directory(request.cwd))
        return tuple(parts)


#: The registered provider object.
provider = AnyTextProvider()
