"""The Jackal server: trio at the edge, a synchronous table state machine inside. Start one
with ``await nursery.start(serve, ServerConfig(port=0))`` (it returns the port it bound) or
``jackal serve``. Its rooms (``net/``, the hub and the tables with their parts, ``views``,
``records/``) are drawn in docs/ARCHITECTURE.md."""

from __future__ import annotations

from .config import DEFAULT_PORT, ServerConfig
from .net.listener import serve

__all__ = ["DEFAULT_PORT", "ServerConfig", "serve"]
