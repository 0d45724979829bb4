"""httpx (and httpx-sse, which imports it), without httpx's command-line client.

httpx imports its command-line client when it is imported and rich and pygments happen to
be installed (they come with other packages): 69 modules, a fifth of the modules a request
of ``tai next`` imports. tai never runs that client. A ``None`` in ``sys.modules`` makes its
import fail with the ImportError httpx already expects when they are missing, so this
module imports httpx only after putting it there; the modules that speak HTTP import httpx
from here.
"""

import sys

sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

import httpx  # noqa: E402 - only after the line above
from httpx_sse import EventSource  # noqa: E402 - it imports httpx

__all__ = ["EventSource", "httpx"]
