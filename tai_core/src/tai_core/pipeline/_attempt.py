"""One attempt at a round: stream the reply, parse it as it comes, apply streaming kinds.

The parser sees only reply text (thoughts are never parsed). Each block is announced the
moment its closing line arrives; a streaming kind (``change``) is validated and applied to
the in-memory workspace right then, so a bad change stops the attempt at once instead of
after a long reply. Nothing here touches the disk: the workspace value is returned and the
caller decides whether the attempt succeeded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tai_core.blocks import (
    Block,
    BlockKind,
    BlockNotRunnableError,
    BlockParseError,
    BlockParser,
    misdelimited,
)
from tai_core.events import (
    BlockParsed,
    Event,
    Notice,
    ParseFailed,
    TextReceived,
    ThoughtReceived,
    ThoughtSummarized,
)
from tai_core.models import (
    Finish,
    GenerationRequest,
    ModelSpec,
    Provider,
    ProviderError,
    RetryPolicy,
    TextDelta,
    ThoughtDelta,
    Usage,
    generate,
)
from tai_core.pipeline._state import Attempt, BlockApplyError, RunError
from tai_core.pipeline._thoughts import Summarizer, ThoughtStream
from tai_core.plugins._failures import PluginHookError, validation_problems


def _describe(error: Exception) -> str:
    """A kind's own errors speak for themselves; a built-in exception is a bug, named."""
    if type(error).__module__ == "builtins" or not str(error):
        return f"{type(error).__name__}: {error}"
    return str(error)


def applies(kind: BlockKind | None, workspace: Any) -> bool:
    """True when blocks of ``kind`` are applied while streaming: a streaming kind, in a run
    that has a workspace (the caller checks that the kind is offered)."""
    return kind is not None and kind.streams and workspace is not None


class AttemptRunner:
    """Runs attempts for one session: the model, the kinds and the hooks it needs."""

    def __init__(
        self,
        *,
        provider: Provider,
        spec: ModelSpec,
        kinds: Mapping[str, BlockKind],
        hook: Any,
        emit: Callable[[Event], None],
        session_id: str,
        command: str,
        disabled: frozenset[str] = frozenset(),
        retry_policy: RetryPolicy | None = None,
        summarize: Summarizer | None = None,
    ) -> None:
        self.provider = provider
        self.spec = spec
        self.kinds = kinds
        self.hook = hook
        self.emit = emit
        self.session_id = session_id
        self.command = command
        self.disabled = disabled
        self.retry_policy = retry_policy
        #: Writes thought summaries (``-summarize-thoughts``), when given.
        self.summarize = summarize
        #: The text of the reply streaming now (or last), as far as it came.
        self.streamed: list[str] = []

    def offers(self, kind: BlockKind) -> bool:
        """True when ``kind`` is available in this run (its command, not switched off)."""
        return self.command in kind.commands and kind.name not in self.disabled

    def _announce(self, block: Block, kind: BlockKind | None) -> None:
        """Tell the plugins ``block`` was parsed (``tai_block_parsed``); a plugin that fails
        there fails the attempt, as a block that cannot be applied does."""
        try:
            self.hook.tai_block_parsed(block=block, kind=kind)
        except PluginHookError as error:
            raise BlockApplyError(block, str(error)) from None

    def problems(self, block: Block, kind: BlockKind) -> list[str]:
        """Every plugin's validation problems of ``block``."""
        return validation_problems(self.hook, block, kind)

    def _notice_retry(self, attempt: int, delay: float, error: ProviderError) -> None:
        self.emit(
            Notice(
                self.session_id,
                "warning",
                f"{error} — retrying in {delay:.1f} s (attempt {attempt + 1})",
            )
        )

    async def run(
        self, request: GenerationRequest, round_no: int, workspace: Any,
        model: tuple[Provider, ModelSpec] | None = None,
    ) -> Attempt:  # fmt: skip
        """Stream one reply to ``request`` (from ``model``, else the session's); the
        attempt's outcome, failed or not."""
        provider, spec = model or (self.provider, self.spec)
        parser = BlockParser()
        text: list[str] = []
        self.streamed = text
        thoughts: list[str] = []
        blocks: list[Block] = []
        errors: list[BlockParseError] = []
        usage: Usage | None = None
        finish: str | None = None
        current = workspace

        def take(results: Iterable[Block | BlockParseError]) -> None:
            nonlocal current
            for result in results:
                if isinstance(result, BlockParseError):
                    errors.append(result)
                    self.emit(ParseFailed(self.session_id, round_no, result))
                    continue
                kind = self.kinds.get(result.kind)
                self._announce(result, kind)
                self.emit(BlockParsed(self.session_id, round_no, result))
                if applies(kind, current) and self.offers(kind):
                    current = self._apply(kind, result, current)
                blocks.append(result)

        summaries = self._thought_stream(round_no)
        failure: ProviderError | BlockApplyError | RunError | None = None
        try:
            async for event in generate(
                provider,
                spec,
                request,
                policy=self.retry_policy,
                on_retry=self._notice_retry,
            ):
                if isinstance(event, TextDelta):
                    if summaries is not None and not text:
                        summaries.answer_began()
                    text.append(event.text)
                    self.emit(TextReceived(self.session_id, round_no, event.text))
                    take(parser.feed(event.text))
                elif isinstance(event, ThoughtDelta):
                    thoughts.append(event.text)
                    self.emit(ThoughtReceived(self.session_id, round_no, event.text))
                    if summaries is not None:
                        summaries.thought(event.text)
                elif isinstance(event, Usage):
                    usage = event
                elif isinstance(event, Finish):
                    finish = event.reason
            take(parser.finish())
            take(misdelimited("".join(text), self.kinds, blocks))  # meant, not read as blocks
        except (ProviderError, BlockApplyError, RunError) as error:
            failure, current = error, workspace
        except BaseException:
            if summaries is not None:
                summaries.cancel()
            raise
        return Attempt(
            "".join(text), "".join(thoughts), tuple(blocks), tuple(errors), current, usage,
            finish, failure, await summaries.summaries() if summaries is not None else (),
        )  # fmt: skip

    def _thought_stream(self, round_no: int) -> ThoughtStream | None:
        """The summaries of this attempt's thoughts, when they are asked for."""
        if self.summarize is None:
            return None
        return ThoughtStream(
            self.summarize,
            lambda summary: self.emit(ThoughtSummarized(self.session_id, round_no, summary)),
        )

    def _apply(self, kind: BlockKind, block: Block, workspace: Any) -> Any:
        problems = self.problems(block, kind)
        if problems:
            raise BlockApplyError(block, "; ".join(problems))
        try:
            return kind.apply(block, workspace)
        except BlockNotRunnableError as error:
            raise BlockApplyError(block, str(error)) from None
        except Exception as error:  # noqa: BLE001 - any apply failure fails the attempt
            if getattr(error, "retryable", True) is False:
                raise RunError(f"{block.kind} block at line {block.line}: {error}") from None
            raise BlockApplyError(block, _describe(error)) from None
