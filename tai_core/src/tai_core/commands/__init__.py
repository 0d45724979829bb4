"""The core's commands that talk to a model (``next``; ``ping`` and ``record`` beside it).

Each module defines one click command, registered by the core plugin through
``tai_register_commands`` like any plugin command. Command modules import only click at
load time; the runtime, the pipeline and asyncio are imported when a command runs, so
``tai --help`` stays light.
"""
