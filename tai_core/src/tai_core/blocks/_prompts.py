"""The prompts that teach a model the block format, and how kinds add to them.

The format section and its restatement are kind-agnostic: they describe the heredoc shape
and the deferred-execution contract and never name a kind, so adding or disabling a kind
never changes them and they stay in the provider's cached prefix. Each kind contributes
its own section (system prompt) and restatement (end of the user prompt); kinds that are
registered but not available in the current command are announced as disabled, so the
model does not write blocks that would be ignored — but for those that say they have no
meaning in it (``omitted_in``: another language's kinds in a goal loop), which are left
out: "tests cannot be run now" would mislead where another kind runs them. So are those
that say they are not worth offering with the files the prompt shows (``offered``: a
language's kinds in an any-text run that shows none of its files).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tai_core.blocks._kind import BlockKind

FORMAT_SYSTEM_PROMPT = """\
# Block format

Everything you want done — edits, source requests, commands, plans, summaries — is written \
as a block in plain text. A block is:

<<WW kind(name="value", other="value")
body
WW

- The opening line starts with `<<` at the very beginning of a line, followed by the \
delimiter, then the block's kind and its parameters in parentheses (or the kind alone when \
it takes none).
- `WW` stands for the delimiter: a rare word of exactly two Chinese characters that you \
choose. Choose a fresh one for every block. Never use `WW` itself, never reuse a word \
shown anywhere in this prompt, and never use a word that occurs inside the body.
- The body is everything between the opening line and the closing line. The closing line \
holds the delimiter alone, at the beginning of the line, with nothing else on it.
- Parameter values are quoted with double or single quotes; inside them write `\\"`, \
`\\'`, `\\\\`, `\\n` and `\\t` for a quote, a backslash, a newline and a tab. A value \
without spaces, commas or parentheses may be left unquoted.
- A block inside a body is only text, unless it uses the same delimiter (then it is part \
of the outer body): use a different delimiter for every block.

# Deferred execution

Blocks are requests, not tool calls. Nothing runs while you write. Blocks are carried out \
after your whole reply has ended, and their results (source, test output, command output, \
errors) arrive in the next message. Never assume, predict or invent the result of a block: \
write the blocks you need, end your reply, and read the results when they come. You may \
write any number of blocks in one reply. They are carried out kind by kind, not in the order \
of the reply: every change first, then the tests, then the fetches and commands; blocks of \
one kind in the order you wrote them."""

FORMAT_RESTATEMENT = """\
- Blocks: `<<` at the start of a line, a fresh two-Chinese-character delimiter, the kind \
and its parameters; the closing line is the delimiter alone.
- Quote parameter values; escape quotes and backslashes inside them.
- Blocks run after your reply ends; their results arrive next message. Do not guess them."""

DISABLED_HEADER = """\
# Disabled blocks

These kinds are not available now. A block of these kinds is discarded, is not carried \
out and starts no new round; where the context suggests one (to fetch a file, a declaration \
or a test), work from what the context shows instead:"""


def _sections(texts: Iterable[str]) -> str:
    return "\n\n".join(text.strip() for text in texts if text.strip())


def _section(kind: BlockKind, command: str) -> str:
    """``kind``'s section in ``command`` (a kind without ``prompt_for`` has one section)."""
    prompt_for = getattr(kind, "prompt_for", None)
    return prompt_for(command) if prompt_for is not None else kind.prompt_section


def disabled_notice(kinds: Iterable[BlockKind]) -> str:
    """The prompt section announcing disabled ``kinds`` (empty when there are none)."""
    lines = [
        f"- {kind.name}: {kind.disabled_notice.strip()}"
        for kind in sorted({kind.name: kind for kind in kinds}.values(), key=lambda k: k.name)
    ]
    if not lines:
        return ""
    return DISABLED_HEADER + "\n" + "\n".join(lines)


def block_prompts(
    kinds: Iterable[BlockKind],
    command: str,
    disabled: Iterable[str] = (),
    files: Sequence[str] | None = None,
) -> tuple[str, str]:
    """The block part of the system prompt and of the user prompt's restatement.

    ``kinds`` are all registered kinds; those available in ``command`` and not named in
    ``disabled`` get their sections for ``command`` (``prompt_for``), in name order (for
    a stable prefix), the others are announced as disabled unless ``command`` is one they
    are omitted in. Given the ``files`` the prompt shows, a kind that is not worth
    offering with them (``offered``) is left out altogether. Returns ``(system,
    restatement)``.
    """
    turned_off = set(disabled)
    enabled: list[BlockKind] = []
    off: list[BlockKind] = []
    for kind in sorted(kinds, key=lambda k: k.name):
        offered = getattr(kind, "offered", None)
        if files is not None and offered is not None and not offered(command, files):
            continue
        if command in kind.commands and kind.name not in turned_off:
            enabled.append(kind)
        elif command not in getattr(kind, "omitted_in", ()):
            off.append(kind)
    system = _sections(
        [FORMAT_SYSTEM_PROMPT, *(_section(kind, command) for kind in enabled), disabled_notice(off)]
    )
    restatement = "\n".join(
        [
            FORMAT_RESTATEMENT,
            *(f"- {kind.restatement.strip()}" for kind in enabled if kind.restatement),
        ]
    )
    return system, restatement
