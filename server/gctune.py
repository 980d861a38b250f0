"""The cyclic garbage collector, set for a server that holds thousands of connections.

Why: CPython's collector pauses the whole process. A young pass looks at the objects
created since the last one; a full pass looks at every tracked object the process holds.
A server with thousands of connections and tables holds hundreds of thousands of them,
so full passes took 300-420 ms and young passes tens of ms, which was the whole latency
tail (with the collector off, p99 fell from 35 ms to 2.4 ms). Three things keep it short:

- :func:`settle` runs once the server has started and restored its matches: one full
  collection, then :func:`gc.freeze`, which moves everything alive (modules, classes,
  functions, the restored tables) into a permanent generation no pass ever scans again;
- the objects that remain are few per connection and per table (the server keeps one task
  per connection, slotted classes, shared encoded messages), so a pass over them is short;
- the thresholds below make passes rarer:
  - generation 0: a young pass after :data:`YOUNG` net new container objects instead of
    700. The server's garbage is nearly all freed by reference counting the moment a
    message is sent; a larger young generation means a short-lived object is almost
    never promoted just because a pass happened to run while it was alive, and the pass
    itself stays a few milliseconds at most;
  - generation 1: every :data:`MIDDLE` young passes, as CPython's default;
  - generation 2: CPython starts a full pass only when the objects promoted since the last
    one exceed a quarter of the old generation; :data:`OLD` young-middle rounds must pass
    too, so full passes are spread out rather than run back to back while a burst of new
    connections settles in.

Nothing here turns the collector off: reference cycles (exceptions with tracebacks,
cancelled tasks) are still found, only less often.
"""

from __future__ import annotations

import gc

__all__ = ["MIDDLE", "OLD", "YOUNG", "settle", "unsettle"]

YOUNG = 20_000
MIDDLE = 10
OLD = 100


def settle() -> tuple[int, int, int]:
    """After start-up and restore: set the thresholds, collect once, then freeze what is
    alive. Returns the thresholds there were before, for :func:`unsettle`."""
    before = gc.get_threshold()
    gc.set_threshold(YOUNG, MIDDLE, OLD)
    gc.collect()
    gc.freeze()
    return before


def unsettle(before: tuple[int, int, int]) -> None:
    """The server stopped (in a process that goes on, e.g. a test run): frozen objects
    become collectable again and the thresholds are put back."""
    gc.unfreeze()
    gc.set_threshold(*before)
