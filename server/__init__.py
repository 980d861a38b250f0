"""The Jackal server: trio at the edge, a synchronous table state machine inside.

Start one with ``await nursery.start(serve, ServerConfig(port=0))`` (the port it
bound is returned) or from the shell with ``jackal serve``. Module map: config
(settings), listener (accepting), session (one connection), hub (routing and table
tasks), lobby, table (the rules of who may do what), disclosure (conventions,
explanations, questions), views (the only place hidden cards are removed), tokens,
ratelimit, bots (server-side seats), records (match files and crash recovery).
"""

from __future__ import annotations

from .config import DEFAULT_PORT, ServerConfig
from .listener import serve

__all__ = ["DEFAULT_PORT", "ServerConfig", "serve"]
