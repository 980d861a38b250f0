"""Bot strategies and the arena that measures them."""

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
