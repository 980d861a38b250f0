"""The browser's way in: an HTTP listener that serves the page shipped in ``static/`` and
turns ``/ws`` into a WebSocket carrying the line protocol unchanged (:mod:`.gateway`,
:mod:`.wsstream`). Only the listener starts it; it hands each WebSocket to the same
admission and :class:`~jackal.server.net.session.Session` as a TCP connection."""
