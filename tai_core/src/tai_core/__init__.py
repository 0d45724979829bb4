"""tai-core: the part of tai every plugin and embedder builds on.

The core knows four things — the hook specifications (:mod:`tai_core.hookspecs`), the
block protocol (:mod:`tai_core.blocks`), the session tree (:mod:`tai_core.tree`) and the
plugin layer that loads everything else (:mod:`tai_core.plugins`) — plus the pipeline,
the runtime and the command line built from them. It never imports a block kind, a
provider or a sandbox: those are plugins, and tai-core with no plugin installed still
starts and says what is missing.

The public API for plugin authors is what this module exports: the ``hookimpl`` marker,
the block-kind contract and the parser's values, and how text from outside tai (a model's
words, a path it chose) is shown on a terminal (``shown_on``, ``printable``), and the one
rule by which a name tai does not know is answered with the nearest it does
(``did_you_mean``). They are
imported on first use (:mod:`tai_core._lazy`), so that importing any part of tai — the
command line's launch above all — costs only what that part uses.
"""

from tai_core._lazy import lazy_exports

TYPE_CHECKING = False  # not typing's: importing it would cost more than the rest (_lazy)
if TYPE_CHECKING:
    from tai_core._nearest import did_you_mean
    from tai_core._printable import printable, printable_lines, shown_on
    from tai_core.blocks import (
        Block,
        BlockKind,
        BlockNotRunnableError,
        BlockParseError,
        BlockParser,
        BlockResult,
        Param,
        RunContext,
        parse_blocks,
    )
    from tai_core.context import ContextPart, ContextProvider, ContextRequest
    from tai_core.models import Provider
    from tai_core.plugins import IsolationError, PluginHost, hookimpl

__all__ = [
    "Block",
    "BlockKind",
    "BlockNotRunnableError",
    "BlockParseError",
    "BlockParser",
    "BlockResult",
    "ContextPart",
    "ContextProvider",
    "ContextRequest",
    "IsolationError",
    "Param",
    "PluginHost",
    "Provider",
    "RunContext",
    "did_you_mean",
    "hookimpl",
    "parse_blocks",
    "printable",
    "printable_lines",
    "shown_on",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "tai_core.blocks": ["Block", "BlockKind", "BlockNotRunnableError", "BlockParseError",
                            "BlockParser", "BlockResult", "Param", "RunContext", "parse_blocks"],
        "tai_core.context": ["ContextPart", "ContextProvider", "ContextRequest"],
        "tai_core.models": ["Provider"],
        "tai_core.plugins": ["IsolationError", "PluginHost", "hookimpl"],
        "tai_core._printable": ["printable", "printable_lines", "shown_on"],
        "tai_core._nearest": ["did_you_mean"],
    },
)  # fmt: skip
