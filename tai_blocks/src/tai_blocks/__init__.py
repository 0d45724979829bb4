"""tai-blocks: the block kinds of tai, each a plugin of its own.

Every kind lives in its own module under :mod:`tai_blocks.kinds` and is registered through
its own entry point in the group ``tai`` (the entry name is the kind's name), using only
tai-core's public hooks — the same way a third-party kind is registered. So
``-p no:shell`` removes exactly the shell kind, and a kind's prompt section, parameters
and validation sit next to each other. Execution arrives kind by kind; a kind that cannot
run yet says so (``BlockNotRunnableError``) instead of pretending.
"""
