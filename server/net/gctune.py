"""The cyclic garbage collector's policy for a server that holds thousands of connections.

:func:`settle` freezes what is alive at start-up and what survives every pass, and
:func:`young_passes` runs young passes on a clock, so the long passes over every
connection and table, which were the whole latency tail, no longer happen.
"""

from __future__ import annotations

import gc
from typing import Any

import trio

__all__ = ["YOUNG", "YOUNG_EVERY", "settle", "unsettle", "young_passes"]

#: The collector's own young threshold: only a backstop for a burst between two ticks of
#: :func:`young_passes`.
YOUNG = 2_000
YOUNG_EVERY = 0.1


def _freeze_survivors(phase: str, _info: dict[str, Any]) -> None:
    """gc callback: after each pass, move its survivors out of the collector's sight."""
    if phase == "stop":
        gc.freeze()


def settle() -> tuple[int, int, int]:
    """After start-up and restore: collect once, freeze what is alive, and from now on
    freeze the survivors of every pass. Returns the thresholds there were before, for
    :func:`unsettle`.

    Why: CPython's collector stops the whole process while it runs, for a time that grows
    with the number of objects it looks at. A young pass looks at the container objects
    made since the last pass; an older pass also looks at everything that survived earlier
    ones. A server with 4,000 connections holds some 50 tracked objects per connection
    (its task's coroutine chain, streams, buffers) plus its tables: hundreds of thousands.
    Measured at 1,000 tables, the older passes over them took 100-400 ms, and they were
    the whole latency tail (with the collector off, p99 fell from 35 ms to 2.4 ms).

    :func:`gc.freeze` moves what is alive to the permanent generation, which no pass scans:
    first what start-up made (modules, classes, the restored tables), then, from a
    callback after every pass (freezing only relinks lists: it costs nothing), whatever
    survived it. In this server a survivor is long-lived state (a connection, a table, a
    deal) or a message in flight; either way no later pass needs to look at it, so the
    older generations stay empty and only young passes remain.

    What this gives up: frozen objects are still freed the moment nothing refers to them
    (reference counting does not care about generations), but a reference *cycle* among
    frozen objects is never collected. So the server must not leave cycles behind when a
    connection, a table or a deal ends; ``tests/server/net/test_gc_policy.py`` checks that
    closing connections, dropping slow or flooding clients and playing whole matches leave
    no cyclic garbage, which is what makes freezing survivors safe here.
    """
    before = gc.get_threshold()
    gc.set_threshold(YOUNG, *before[1:])
    gc.collect()
    gc.freeze()
    if _freeze_survivors not in gc.callbacks:
        gc.callbacks.append(_freeze_survivors)
    return before


async def young_passes() -> None:
    """Run a young pass every :data:`YOUNG_EVERY` seconds, until cancelled.

    CPython starts one when *net* new objects pass a threshold, but in a busy server new
    objects are made as fast as old ones (frozen ones included) are freed, so that count
    hardly grows while the young list does: measured, passes came seconds apart and looked
    at up to 80,000 objects (55 ms). On a clock, a pass only ever sees what was made in
    the last tenth of a second and survived it: a millisecond or two.
    """
    while True:
        await trio.sleep(YOUNG_EVERY)
        gc.collect(0)


def unsettle(before: tuple[int, int, int]) -> None:
    """The server stopped (in a process that goes on, e.g. a test run): frozen objects
    become collectable again and the collector works as before."""
    if _freeze_survivors in gc.callbacks:
        gc.callbacks.remove(_freeze_survivors)
    gc.unfreeze()
    gc.set_threshold(*before)

