"""Measuring bots: the arena (:mod:`.run`, one deal in :mod:`.deal`, on Dask in
:mod:`.cluster`) plays strategies against each other in-process; the tournament (on paper
in :mod:`.tournament`, its tables played over the protocol in :mod:`.director`) plays
programs at a server. Both score with the yardstick of :mod:`jackal.bots.yardstick`.
"""
