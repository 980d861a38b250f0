"""The Jackal server: trio at the edge, a synchronous table state machine inside.

Start one with ``await nursery.start(serve, ServerConfig(port=0))`` (the port it bound is
returned) or from the shell with ``jackal serve``. Its rooms: ``net/`` (the network edge),
the hub and the tables with their parts, ``views`` (the one place hands are cut), and
``records/`` (match files, replay and crash recovery); docs/ARCHITECTURE.md draws them.
"""

from __future__ import annotations

from .config import DEFAULT_PORT, ServerConfig
from .net.listener import serve

__all__ = ["DEFAULT_PORT", "ServerConfig", "serve"]
