"""The server's network edge: accepting connections (listener), one connection's sans-IO
machine and its queues (session, transport), the pings that find dead peers (keepalive),
the token buckets (ratelimit), and what keeps trio's loop quick under load: the collector's
policy (gctune) and the worker threads that give way to moves (threadslots). The tables
and their records know nothing of this room; the hub hands it their lines."""
