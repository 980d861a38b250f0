"""Bot strategies, how one is hosted, and the yardstick they are measured by (the arena
that measures them is :mod:`jackal.arena`)."""

from __future__ import annotations

from .base import Strategy, StrategyFactory, View
from .registry import (
    STRATEGIES,
    load_strategy,
    make_strategy,
    substitute_strategy,
)

__all__ = ["STRATEGIES", "Strategy", "StrategyFactory", "View", "load_strategy", "make_strategy",
           "substitute_strategy"]
